import { Schema } from "effect"
import { maxLength, minLength } from "../Length.ts"

export const BoardItem = Schema.Struct({
  id: Schema.String.pipe(minLength(1), maxLength(100)),
  kind: Schema.Literal("company", "person", "list", "supplier", "opportunity", "topic", "sequence"),
  label: Schema.String.pipe(maxLength(300)),
  ref: Schema.String.annotations({ description: "The ref of the tool result the item came from" })
})
export type BoardItem = typeof BoardItem.Type

export const BoardReadInput = Schema.Struct({})

export const Board = Schema.Struct({
  ref: Schema.String,
  items: Schema.Array(BoardItem),
  selected: Schema.Array(Schema.String).annotations({ description: "The ids of the items the user selected, in board order" }),
  total: Schema.Int,
  selected_total: Schema.Int,
  version: Schema.Int
}).annotations({ identifier: "Board" })

export const SelectionUpdateInput = Schema.Struct({
  ids: Schema.Array(Schema.String.pipe(minLength(1), maxLength(100))).pipe(Schema.maxItems(500)).annotations({
    description: "Ids of items on the board"
  }),
  mode: Schema.optionalWith(Schema.Literal("replace", "add", "remove"), { default: () => "replace" as const }).annotations({
    description: "replace the selection with ids (default), add them to it, or remove them from it"
  })
})
