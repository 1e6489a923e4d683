import { Effect } from "effect"
import type { Decoded, Resolved } from "./Call.ts"
import { leaf } from "./Step.ts"

export const decode = leaf("Executor.decode")(Effect.fnUntraced(function* (resolved: Resolved) {
  const decoded = yield* resolved.tool.decode(resolved.rawInput)
  return { ...resolved, decoded } satisfies Decoded
}))
