import { Cause, Effect, Option, type Tracer } from "effect"
import type { RecordNotFound } from "../../schema/Errors.ts"
import type { Audited } from "./Call.ts"
import { envelope } from "./Envelope.ts"
import { collecting, handled } from "./Run.ts"
import { leafWithSpan } from "./Step.ts"

/** What a read call runs after its commit: the `Some` of its `afterCommit`. */
type After = Option.Option.Value<Audited["afterCommit"]>

/** What the answer was about is gone (a connection deleted, with its jobs, while the call waited): the committed answer would be false. */
const staysAnswered = <E extends { readonly _tag: string }>(error: E): error is Exclude<E, RecordNotFound> =>
  error._tag !== "RecordNotFound"

/**
 * What a read call does once its writes and its audit row committed (wait for its sync), outside any
 * transaction. Should that fail, the committed answer stands, with a warning: the call was recorded.
 * A RecordNotFound is the answer instead.
 */

export const afterCommit = leafWithSpan("Executor.afterCommit")(
  Effect.fnUntraced(function* (span: Tracer.Span, call: Audited, after: After) {
    const later = yield* collecting(call, span, call.extras, (info) => handled(call.toolId)(after(info))).pipe(
      Effect.map(([data, extras]) => ({ data, extras })),
      Effect.catchIf(
        staysAnswered,
        (error) =>
          Effect.logWarning("the call committed but what follows its commit failed: it answers as committed", Cause.fail(error)).pipe(
            Effect.as({
              data: call.data,
              extras: {
                ...call.extras,
                warnings: [
                  ...(call.extras.warnings ?? []),
                  `Recorded, but its progress could not be followed (${error.message}): this answer is as of the commit.`
                ]
              }
            })
          )
      )
    )
    const enveloped = yield* envelope({ ...call, ...later, afterCommit: Option.none() })
    return { ...call, ...enveloped, status: call.status, row: call.row }
  })
)
