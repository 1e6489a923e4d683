import { Either } from "effect"
import type { Authorized, Budgeted } from "./Call.ts"
import { pure } from "./Step.ts"

/**
 * The seat of the budget: where a `read` cost will count against the workspace's hourly ceiling and a
 * `credits` call will need its live quote and idempotency key. Until then every call passes, unmetered.
 */
export const budget = pure("Executor.budget")((authorized: Authorized) =>
  Either.right({ ...authorized, charge: "unmetered" } satisfies Budgeted)
)
