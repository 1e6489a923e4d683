import { BoardItem } from "../../schema/catalog/Session.ts"
import { leading } from "../../schema/Length.ts"
import { isObject, type JsonObject } from "../../schema/tools/JsonSchema.ts"

const KINDS = new Set<string>(BoardItem.fields.kind.literals)

const itemOf = (value: JsonObject): ReadonlyArray<BoardItem> => {
  const { id, ref } = value
  if (typeof id !== "string" || typeof ref !== "string") return []
  const kind = ref.slice(0, ref.indexOf(":"))
  if (!KINDS.has(kind)) return []
  const named = [value["name"], value["label"], value["title"], value["trade_name"], value["legal_name"], value["full_name"]].find((v) =>
    typeof v === "string"
  )
  const label = typeof named === "string" ? named : id
  return [{ id: leading(id, 100), kind: kind as BoardItem["kind"], label: leading(label, 300), ref }]
}

/** What a tool result puts on the chat's board: the records it returned (each with its id and ref), or the record it is. */
export const boardItemsOf = (data: unknown): ReadonlyArray<BoardItem> => {
  if (!isObject(data)) return []
  const items = data["items"]
  if (Array.isArray(items)) return items.filter(isObject).flatMap(itemOf)
  return itemOf(data)
}
