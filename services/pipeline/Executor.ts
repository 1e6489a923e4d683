import { SqlClient } from "@effect/sql"
import { Cause, Effect, Option, type Tracer } from "effect"
import { AuditUnavailable, ServiceUnavailable } from "../../schema/Errors.ts"
import type { CallContext } from "../../schema/Principal.ts"
import type { ToolResponse } from "../../schema/tools/Response.ts"
import { AuditLog } from "../audit/AuditLog.ts"
import { isTransient } from "../Database.ts"
import { noStack } from "../Span.ts"
import { Registry } from "../tools/Registry.ts"
import { afterCommit } from "./AfterCommit.ts"
import { AuditFailed, auditStep, elapsedMs } from "./AuditStep.ts"
import { Authorize } from "./Authorize.ts"
import { Budget } from "./Budget.ts"
import type { Audited, Budgeted } from "./Call.ts"
import { decode } from "./Decode.ts"
import { envelope } from "./Envelope.ts"
import { begin, resolve, visibleTool } from "./Resolve.ts"
import { run } from "./Run.ts"

type Restore = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>

const auditedAlready = (cause: Cause.Cause<{ readonly _tag: string }>) =>
  Option.exists(Cause.failureOption(cause), (error) => error._tag === "AuditFailed")

/** The one executor every surface calls: resolve → decode → authorize → budget → run → envelope → audit. */
export class Executor extends Effect.Service<Executor>()("brein/pipeline/Executor", {
  effect: Effect.gen(function* () {
    const registry = yield* Registry
    const authorize = yield* Authorize
    const budget = yield* Budget
    const audit = auditStep(yield* AuditLog)
    const sql = yield* SqlClient.SqlClient
    const resolveTool = resolve(registry)

    /** The call's effects and its audit row commit together, or neither does. */
    const transaction = <A, E>(body: Effect.Effect<A, E>) =>
      sql.withTransaction(body).pipe(Effect.catchTag("SqlError", (error) =>
        isTransient(error)
          ? Effect.zipRight(
            Effect.logWarning("database unavailable: the call answers ServiceUnavailable", Cause.fail(error)),
            Effect.fail(new AuditFailed({ error: ServiceUnavailable.database }))
          )
          : Effect.fail(new AuditFailed({ error: new AuditUnavailable({ message: "the call could not be committed" }) }))))

    /** run → envelope → audit, as the tool's call policy says; only the handler can be interrupted (`restore`). */
    const commit = (call: Budgeted, restore: Restore) => {
      const ran = Effect.flatMap(restore(run(call)), envelope)
      switch (call.bound.policy) {
        case "pure":
          return Effect.flatMap(ran, (done) =>
            audit.grouped(done).pipe(
              Effect.catchTag("AuditUnavailable", () => Effect.succeed<Audited>({ ...done, status: "failed", row: Option.none() }))
            ))
        case "spends":
          return Effect.flatMap(ran, (done) => audit.grouped(done).pipe(Effect.mapError((error) => new AuditFailed({ error }))))
        case "writes":
        case "read":
          return transaction(
            Effect.flatMap(ran, (done) => audit.inTransaction(done).pipe(Effect.mapError((error) => new AuditFailed({ error }))))
          )
      }
    }

    const pipeline = Effect.fnUntraced(function* (span: Tracer.Span, toolId: string, rawInput: unknown, context: CallContext) {
      const request = yield* begin(span, toolId, rawInput, context)
      // A caller that leaves (a client that hangs up, a stop) interrupts the call only while it checks the
      // connection and the budget or runs the handler; the call then writes its row (Interrupted) as any
      // failed call does. Once its handler is done, it commits and audits before the interruption takes effect.
      const audited = yield* Effect.uninterruptibleMask((restore) =>
        Effect.gen(function* () {
          const resolved = yield* resolveTool(request)
          const decoded = yield* decode(resolved)
          const budgeted = yield* restore(Effect.flatMap(authorize.check(decoded), budget.check))
          return yield* commit(budgeted, restore).pipe(budget.givingBack(budgeted))
        }).pipe(
          Effect.tapErrorCause((cause) =>
            auditedAlready(cause) ? Effect.void : audit.failed(request, visibleTool(registry, request), cause)
          )
        )
      ).pipe(Effect.catchTag("AuditFailed", (failed) => Effect.fail(failed.error)))
      // Only a read call has something to do after its commit (and so that step's span). Should that end the
      // call in an error, a second row says so (the first, committed, stays true of what committed), and the
      // call's read of the hour is given back: its answer is that error.
      const answered = Option.isSome(audited.afterCommit)
        ? yield* afterCommit(audited, audited.afterCommit.value).pipe(
          budget.givingBack(audited),
          Effect.tapErrorCause((cause) =>
            Cause.isInterruptedOnly(cause) ? Effect.void : audit.failed(request, Option.some(audited.tool), cause)
          )
        )
        : audited
      const response: ToolResponse = {
        ...answered.envelope,
        meta: {
          request_id: answered.requestId,
          tool_id: toolId,
          plane: answered.tool.descriptor.plane,
          latency_ms: elapsedMs(request),
          audit_status: answered.status,
          ...Option.match(answered.row, {
            onNone: () => ({}),
            onSome: (row) => ({ receipt: { chain: row.chain, seq: row.seq, digest: row.digest } })
          })
        }
      }
      return response
    })

    // The call's span is handed to each step (./Step.ts), not provided as the context's parent.
    const call = (toolId: string, rawInput: unknown, context: CallContext) =>
      Effect.useSpan("Executor.call", noStack, (span) => pipeline(span, toolId, rawInput, context))

    return { call }
  }),
  dependencies: [Authorize.Default, Budget.Default, AuditLog.Default]
}) {}
