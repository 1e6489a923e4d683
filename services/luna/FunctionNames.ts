import { createHash } from "node:crypto"
import { WIRE_FUNCTION_NAME } from "../../schema/luna/ChatWire.ts"

/** What a function name the request did not offer maps back to: never a registry id, so the loop refuses it. */
export const UNKNOWN_FUNCTION_PREFIX = "unknown:"

const MAX_NAME = 64
const SHORT_DIGITS = 8
const LONG_DIGITS = 16

/** Registry ids ↔ provider-safe function names, for one request. */
export interface FunctionNames {
  /** The name on the wire for a tool (an offered one, one named in the history, or any other). */
  readonly wireName: (tool: string) => string
  /** The registry id behind a name the model used; `unknown:<name>` for one the request did not offer. */
  readonly toolOf: (name: string) => string
}

// Dots separate an id's words (`sii.rcv.consultar`); `__` keeps them apart from the `_` inside a word.
const sanitize = (tool: string) => tool.replaceAll(".", "__").replace(/[^a-zA-Z0-9_-]/g, "_")

const digest = (tool: string) => createHash("sha256").update(tool).digest("hex")

const suffixed = (tool: string, digits: number) => `${sanitize(tool).slice(0, MAX_NAME - digits - 1)}_${digest(tool).slice(0, digits)}`

/** A tool's function name when no other tool of the request clashes with it (the loop's own functions, in the manual). */
export const standalone = (tool: string) => {
  const plain = sanitize(tool)
  return WIRE_FUNCTION_NAME.test(plain) ? plain : suffixed(tool, SHORT_DIGITS)
}

/** The function name a call was made by, as the model wrote it (without the `unknown:` mark of a name not offered). */
export const calledName = (called: string) =>
  called.startsWith(UNKNOWN_FUNCTION_PREFIX) ? called.slice(UNKNOWN_FUNCTION_PREFIX.length) : called

/**
 * The registry id, among `tools`, that a call's function name stands for, whether or not the request offered it:
 * the id itself, else a function name the id is given (plain or suffixed); undefined when no tool has that name.
 */
export const toolNamed = (tools: ReadonlyArray<string>, called: string): string | undefined => {
  const name = calledName(called)
  return tools.find((tool) => tool === name) ??
    tools.find((tool) => standalone(tool) === name || suffixed(tool, SHORT_DIGITS) === name || suffixed(tool, LONG_DIGITS) === name)
}

/** A name the model used for a call the loop refused goes back as the model wrote it, when the wire allows it. */
const historyName = (tool: string) => {
  const raw = calledName(tool)
  return WIRE_FUNCTION_NAME.test(raw) ? raw : standalone(raw)
}

const clashing = (names: Map<string, string>) => {
  const counts = new Map<string, number>()
  for (const name of names.values()) counts.set(name, (counts.get(name) ?? 0) + 1)
  return [...names.keys()].filter((tool) => (counts.get(names.get(tool) ?? "") ?? 0) > 1)
}

/**
 * The names depend only on the set of tools, not on their order: a tool keeps its plain name unless
 * another tool of the set comes out the same (then each of them gets a suffix from a hash of its id)
 * or it is too long.
 */
const assign = (tools: ReadonlySet<string>) => {
  const names = new Map([...tools].map((tool) => [tool, standalone(tool)]))
  for (const digits of [SHORT_DIGITS, LONG_DIGITS]) {
    for (const tool of clashing(names)) names.set(tool, suffixed(tool, digits))
  }
  return names
}

/** The names for one request: `offered` are the request's functions; `mentioned` the tools its history names. */
export const functionNames = (offered: ReadonlyArray<string>, mentioned: ReadonlyArray<string> = []): FunctionNames => {
  const known = new Set([...offered, ...mentioned].filter((tool) => !tool.startsWith(UNKNOWN_FUNCTION_PREFIX)))
  const names = assign(known)
  const offeredSet = new Set(offered)
  const tools = new Map([...names].filter(([tool]) => offeredSet.has(tool)).map(([tool, name]) => [name, tool]))
  return {
    wireName: (tool) => names.get(tool) ?? (tool.startsWith(UNKNOWN_FUNCTION_PREFIX) ? historyName(tool) : standalone(tool)),
    toolOf: (name) => tools.get(name) ?? `${UNKNOWN_FUNCTION_PREFIX}${name}`
  }
}
