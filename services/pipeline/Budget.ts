import { Cause, Effect, Either, Option } from "effect"
import type { SpentCost } from "../../schema/budget/Budget.ts"
import type { InvalidInput, QuoteRefused } from "../../schema/Errors.ts"
import { Credits } from "../budget/Credits.ts"
import { Reads } from "../budget/Reads.ts"
import type { CallInfo, Committed, Metered } from "../tools/Tool.ts"
import type { Authorized, Bound, BoundRun, Budgeted } from "./Call.ts"
import { pure, step } from "./Step.ts"

const answered = (answer: unknown): Committed<never> => ({ answer, afterCommit: Option.none() })

const spending = (bound: Bound, run: BoundRun): Bound => ({ ...bound, run })

/**
 * Step 4: a free call passes; a `read` call takes one read of its workspace's hour (or is refused,
 * saying when the hour frees one); a `credits` call without `confirm` answers a quote in place of its
 * handler, and with it runs under its quote and idempotency key and is charged for what it delivered.
 */
export class Budget extends Effect.Service<Budget>()("brein/pipeline/Budget", {
  effect: Effect.gen(function* () {
    const reads = yield* Reads
    const credits = yield* Credits

    const free = pure("Executor.budget")((call: Authorized) =>
      Either.right({ ...call, charge: "unmetered", taken: Option.none() } satisfies Budgeted)
    )

    const read = step("Executor.budget")((call: Authorized) =>
      Effect.map(reads.take(call.context.principal, call.requestId), ({ cost, taken }): Budgeted => ({
        ...call,
        charge: "read",
        taken: Option.some(taken),
        bound: spending(call.bound, (info) => Effect.zipRight(info.annotate({ cost }), call.bound.run(info)))
      }))
    )

    /**
     * Only an answer counts against the hour: a call that took a read and then answered an error (a bad
     * cursor, an unknown id, a handler that failed, a sync whose connection was deleted while it waited)
     * gives it back once its transaction, if any, is over. A caller that left keeps it spent.
     */
    const givingBack = (call: Budgeted) => <A, E, R>(committing: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      Option.match(call.taken, {
        onNone: () => committing,
        onSome: (taken) =>
          Effect.tapErrorCause(
            committing,
            (cause) => Cause.isInterruptedOnly(cause) ? Effect.void : reads.release(call.context.principal, taken)
          )
      })

    /** In place of the handler: the quote, stored, for the same input with confirm. */
    const quoting =
      (call: Authorized, metered: Metered<never>, unit: { readonly unit: string; readonly unitPrice: number }): BoundRun => (info) =>
        Effect.gen(function* () {
          const items = yield* metered.quote(info)
          const quote = yield* credits.issueQuote(info.principal, call.toolId, metered.inputDigest, items, unit)
          yield* info.annotate({
            hint: quote.affordable
              ? `Nothing was charged. To execute, call ${call.toolId} again with the same input plus confirm: true, this quote_token and an idempotency_key of your choosing, before ${quote.expires_at}`
              : `Nothing was charged. The workspace has ${quote.balance_before} credits and this needs up to ${quote.total}: quote fewer items or get credits first`,
            ...(metered.quoteToken === undefined && metered.idempotencyKey === undefined
              ? {}
              : { warnings: ["quote_token and idempotency_key are read only with confirm: true; this call only quoted"] })
          })
          return answered(quote)
        })

    /** Under its quote and key, in the call's transaction: the key first, then the quote, the handler, the charge. */
    const settling = (call: Authorized, metered: Metered<never>, token: string, key: string): BoundRun => (info: CallInfo) =>
      Effect.gen(function* () {
        const principal = info.principal
        const replay = yield* credits.claimKey(principal, call.toolId, key, metered.inputDigest, call.requestId)
        if (Option.isSome(replay)) {
          const first = replay.value.cost
          const balance = yield* credits.balance(principal)
          if (first !== null && first.kind === "credits") {
            yield* info.annotate({ cost: { ...first, credits: 0, balance_after: balance, replayed: true } })
          }
          return answered(replay.value.answer)
        }
        const quote = yield* credits.useQuote(principal, call.toolId, token, metered.inputDigest, call.requestId)
        const committed = yield* call.bound.run(info)
        const delivered = Math.min(metered.delivered(committed.answer), quote.chargeable)
        const amount = delivered * quote.unitPrice
        const balance = yield* credits.charge(principal, amount, {
          toolId: call.toolId,
          quoteId: quote.id,
          requestId: call.requestId,
          reason: `${call.toolId}: delivered ${delivered} × ${quote.unit}, ${quote.unitPrice} credit${
            quote.unitPrice === 1 ? "" : "s"
          } each`
        })
        const cost: SpentCost = {
          kind: "credits",
          credits: amount,
          unit: quote.unit,
          unit_price: quote.unitPrice,
          delivered,
          balance_after: balance,
          quote_id: quote.id,
          replayed: false
        }
        yield* credits.keepAnswer(principal, call.toolId, key, committed.answer, cost)
        yield* info.annotate({ cost })
        return committed
      })

    const metered = step("Executor.budget")(Effect.fnUntraced(function* (call: Authorized) {
      const cost = call.tool.descriptor.cost
      const meter = "metered" in call.bound ? call.bound.metered : undefined
      if (cost.kind !== "credits" || meter === undefined) {
        return yield* Effect.dieMessage(`${call.toolId} costs credits but was not built with creditsAction`)
      }
      if (!meter.confirm) {
        return {
          ...call,
          charge: "quote",
          taken: Option.none(),
          bound: spending(call.bound, quoting(call, meter, cost))
        } satisfies Budgeted
      }
      // the input's schema refuses a confirm without them (confirmedWithQuote), on every surface
      if (meter.quoteToken === undefined || meter.idempotencyKey === undefined) {
        return yield* Effect.dieMessage(`${call.toolId} was decoded confirmed without its quote_token or idempotency_key`)
      }
      return {
        ...call,
        charge: "credits",
        taken: Option.none(),
        bound: spending(call.bound, settling(call, meter, meter.quoteToken, meter.idempotencyKey))
      } satisfies Budgeted
    }))

    const check = (
      call: Authorized
    ): Effect.Effect<Budgeted, Effect.Effect.Error<ReturnType<typeof read>> | QuoteRefused | InvalidInput> => {
      switch (call.tool.descriptor.cost.kind) {
        case "free":
          return free(call)
        case "read":
          return read(call)
        case "credits":
          return metered(call)
      }
    }
    return { check, givingBack }
  }),
  dependencies: [Reads.Default, Credits.Default]
}) {}
