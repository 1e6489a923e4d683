import { Data, Either } from "effect"
import type { ModelMessage, ModelReply } from "../../../schema/luna/Model.ts"
import { isObject } from "../../../schema/tools/JsonSchema.ts"

/** Values a replay may refer to by name: rN (a result of the session), sN (a setup call's answer), mN (a setup mailbox). */
export type Bindings = ReadonlyMap<string, unknown>

export class PlaceholderUnbound extends Data.TaggedError("PlaceholderUnbound")<{ readonly placeholder: string }> {
  override get message() {
    return `${this.placeholder} names no value of this run (rN: a result of the session, sN: a setup call, mN: a setup mailbox)`
  }
}

const PLACEHOLDER = /\{\{([rsm]\d+)((?:\.[A-Za-z0-9_]+)*)\}\}/g

const at = (value: unknown, path: ReadonlyArray<string>): unknown =>
  path.reduce<unknown>((current, key) => {
    if (Array.isArray(current)) return current[Number(key)]
    return isObject(current) ? current[key] : undefined
  }, value)

/** The text with every placeholder replaced by the value it names; a placeholder naming nothing is an error. */
export const fill = (text: string, bindings: Bindings): Either.Either<string, PlaceholderUnbound> => {
  let missing: string | undefined
  const filled = text.replace(PLACEHOLDER, (whole, name: string, path: string) => {
    const value = at(bindings.get(name), path === "" ? [] : path.slice(1).split("."))
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return String(value)
    missing ??= whole
    return whole
  })
  return missing === undefined ? Either.right(filled) : Either.left(new PlaceholderUnbound({ placeholder: missing }))
}

/** A JSON value with the placeholders of its strings filled. */
export const fillValue = (value: unknown, bindings: Bindings): Either.Either<unknown, PlaceholderUnbound> => {
  if (typeof value === "string") return fill(value, bindings)
  if (Array.isArray(value)) return Either.all(value.map((item) => fillValue(item, bindings)))
  if (isObject(value)) {
    return Either.map(
      Either.all(Object.entries(value).map(([key, item]) => Either.map(fillValue(item, bindings), (filled) => [key, filled] as const))),
      Object.fromEntries
    )
  }
  return Either.right(value)
}

/** A recorded reply as this run plays it: its text and its calls' arguments filled. */
export const fillReply = (reply: ModelReply, bindings: Bindings): Either.Either<ModelReply, PlaceholderUnbound> =>
  Either.gen(function* () {
    const content = reply.content === null ? null : yield* fill(reply.content, bindings)
    const calls = yield* Either.all(
      reply.tool_calls.map((call) => Either.map(fill(call.arguments, bindings), (args) => ({ ...call, arguments: args })))
    )
    return { ...reply, content, tool_calls: calls }
  })

const REF = /^r\d+$/

/** The session's results as the model read them in a request: each tool message that carries a ref (r1, r2…). */
export const resultBindings = (messages: ReadonlyArray<ModelMessage>): Bindings => {
  const found = new Map<string, unknown>()
  for (const message of messages) {
    if (message.role !== "tool") continue
    const parsed = Either.try(() => JSON.parse(message.content) as unknown)
    if (Either.isLeft(parsed) || !isObject(parsed.right)) continue
    const ref = parsed.right["ref"]
    if (typeof ref === "string" && REF.test(ref)) found.set(ref, parsed.right)
  }
  return found
}

// Ids the directory's seed makes are the same in every run: only the ones a run makes anew need a name.
const STABLE = /^(co|pe)_/

const idsOf = (value: unknown, path: ReadonlyArray<string>, depth: number): ReadonlyArray<readonly [string, string]> => {
  if (!isObject(value) || depth > 2) return []
  return Object.entries(value).flatMap(([key, item]) => {
    if (typeof item === "string" && (key === "id" || key.endsWith("_id")) && item.length >= 6 && !STABLE.test(item)) {
      return [[item, [...path, key].join(".")] as const]
    }
    return idsOf(item, [...path, key], depth + 1)
  })
}

/**
 * A live reply written for replay: each id this run made (a list's, a sequence's, a mailbox's) that the
 * reply's arguments quote is replaced by the placeholder that names where it came from.
 */
export const unfillReply = (reply: ModelReply, bindings: Bindings): ModelReply => {
  const names = new Map<string, string>()
  for (const [name, value] of bindings) {
    for (const [id, path] of idsOf(value, [], 0)) if (!names.has(id)) names.set(id, `{{${name}.${path}}}`)
  }
  const unfill = (text: string) =>
    [...names].reduce((current, [id, placeholder]) => current.replaceAll(JSON.stringify(id), JSON.stringify(placeholder)), text)
  return { ...reply, tool_calls: reply.tool_calls.map((call) => ({ ...call, arguments: unfill(call.arguments) })) }
}
