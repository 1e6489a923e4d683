import { Effect } from "effect"
import type { Decoded, Resolved } from "./Call.ts"

export const decode = Effect.fn("Executor.decode")(function* (resolved: Resolved) {
  const decoded = yield* resolved.tool.decode(resolved.rawInput)
  return { ...resolved, decoded } satisfies Decoded
})
