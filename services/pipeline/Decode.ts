import { Either } from "effect"
import { inputIssue } from "../../schema/Depth.ts"
import { InvalidInput } from "../../schema/Errors.ts"
import type { Decoded as DecodedCall, RegisteredTool } from "../tools/Registry.ts"
import type { Decoded, Resolved } from "./Call.ts"
import { pure } from "./Step.ts"

/**
 * How a tool's input is decoded on every surface (and a decision Luna proposes): what no tool can take is
 * refused before the tool's schema reads it.
 */
export const decodeInput = (tool: RegisteredTool, rawInput: unknown): Either.Either<DecodedCall, InvalidInput> => {
  const unreadable = inputIssue(rawInput, "input")
  return unreadable === undefined ? tool.decode(rawInput) : Either.left(InvalidInput.of([unreadable]))
}

export const decode = pure("Executor.decode")((resolved: Resolved) =>
  Either.map(decodeInput(resolved.tool, resolved.rawInput), (decoded) => ({ ...resolved, decoded } satisfies Decoded))
)
