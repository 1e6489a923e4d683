import { Either } from "effect"
import { inputIssue } from "../../schema/Depth.ts"
import { InvalidInput } from "../../schema/Errors.ts"
import type { Decoded, Resolved } from "./Call.ts"
import { pure } from "./Step.ts"

/** What no tool can take is refused before its schema reads it (every surface, the in-process ones included). */
export const decode = pure("Executor.decode")((resolved: Resolved) => {
  const unreadable = inputIssue(resolved.rawInput, "input")
  if (unreadable !== undefined) return Either.left(InvalidInput.of([unreadable]))
  return Either.map(resolved.tool.decode(resolved.rawInput), (decoded) => ({ ...resolved, decoded } satisfies Decoded))
})
