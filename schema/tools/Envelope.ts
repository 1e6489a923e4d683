import type { SpentCost } from "../budget/Budget.ts"
import type { NextAction } from "./Response.ts"

/** What a handler may add next to its data: instructions for the caller, never citable figures. */
export interface EnvelopeExtras {
  readonly next_actions?: ReadonlyArray<NextAction>
  readonly warnings?: ReadonlyArray<string>
  readonly hint?: string
  /** What the call spent: set by the budget step, citable. */
  readonly cost?: SpentCost
}
