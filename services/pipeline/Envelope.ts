import { Either } from "effect"
import type { Enveloped, Ran } from "./Call.ts"
import { pure } from "./Step.ts"

/** Step 6: the data with the instructions the handler added next to it. */
export const envelope = pure("Executor.envelope")((ran: Ran) =>
  Either.right({ ...ran, envelope: { data: ran.data, ...ran.extras } } satisfies Enveloped)
)
