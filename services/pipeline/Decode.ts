import { Either } from "effect"
import type { Decoded, Resolved } from "./Call.ts"
import { pure } from "./Step.ts"

export const decode = pure("Executor.decode")((resolved: Resolved) =>
  Either.map(resolved.tool.decode(resolved.rawInput), (decoded) => ({ ...resolved, decoded } satisfies Decoded))
)
