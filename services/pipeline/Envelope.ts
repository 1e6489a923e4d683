import { Effect } from "effect"
import type { Enveloped, Ran } from "./Call.ts"
import { leaf } from "./Step.ts"

/** Step 6: the data with the instructions the handler added next to it. */
export const envelope = leaf("Executor.envelope")(Effect.fnUntraced(function* (ran: Ran) {
  return { ...ran, envelope: { data: ran.data, ...ran.extras } } satisfies Enveloped
}))
