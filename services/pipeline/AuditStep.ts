import { Cause, Data, Effect, Option, type Tracer } from "effect"
import type { AuditEntry } from "../../schema/audit/AuditRow.ts"
import type { AuditUnavailable, ServiceUnavailable } from "../../schema/Errors.ts"
import type { AuditLog } from "../audit/AuditLog.ts"
import { digestOf } from "../audit/Chain.ts"
import type { RegisteredTool } from "../tools/Registry.ts"
import type { Audited, Enveloped, Request } from "./Call.ts"
import { leafWithSpan, step } from "./Step.ts"

/** The audit step itself failed: the call already has (or tried to write) its one row. */
export class AuditFailed extends Data.TaggedError("AuditFailed")<{ readonly error: AuditUnavailable | ServiceUnavailable }> {}

/** Milliseconds since the call began, to two decimals, by the clock it began by. */
export const elapsedMs = (request: Request) =>
  Math.round(Number(request.clock.unsafeCurrentTimeNanos() - request.startedNanos) / 10_000) / 100

type Outcome = { readonly ok: true; readonly data: unknown } | {
  readonly ok: false
  readonly cause: Cause.Cause<{ readonly _tag: string }>
}

/** What a failed call's row names: its error's tag, Interrupted for a caller that left, else Defect. */
const errorTagOf = (cause: Cause.Cause<{ readonly _tag: string }>) =>
  Option.match(Cause.failureOption(cause), {
    onNone: () => Cause.isInterruptedOnly(cause) ? "Interrupted" : "Defect",
    onSome: (e) => e._tag
  })

/**
 * The row of a call. The output digest covers the answer as committed: for a read call, the answer
 * its transaction commits, before anything it does after the commit.
 */
// The trace id is not set here: AuditLog takes it from this step's span (handed, or current), so the row leads to the call's trace.
const entryOf = (request: Request, tool: Option.Option<RegisteredTool>, outcome: Outcome, connectionId: string | null): AuditEntry => ({
  requestId: request.requestId,
  at: new Date(Number(request.startedNanos / 1_000_000n)),
  workspaceId: request.context.principal.workspaceId,
  principal: request.context.principal.keyId ?? `in-process:${request.context.surface}`,
  surface: request.context.surface,
  toolId: request.toolId,
  plane: Option.match(tool, { onNone: () => "action" as const, onSome: (t) => t.descriptor.plane }),
  connectionId,
  inputDigest: digestOf(request.rawInput),
  outputDigest: outcome.ok ? digestOf(outcome.data) : null,
  outcome: outcome.ok ? "ok" : "error",
  errorTag: outcome.ok ? null : errorTagOf(outcome.cause),
  latencyMs: elapsedMs(request),
  cost: Option.match(tool, { onNone: () => "free", onSome: (t) => t.descriptor.cost.kind })
})

/** Step 7, one writer per policy: the group writer, the call's own transaction, or the row of a failed call. */
export const auditStep = (log: AuditLog) => {
  const succeeded = (call: Enveloped) => entryOf(call, Option.some(call.tool), { ok: true, data: call.data }, call.bound.connectionId)
  const recorded = (call: Enveloped) => (row: Audited["row"] extends Option.Option<infer R> ? R : never): Audited => ({
    ...call,
    status: "recorded",
    row: Option.some(row)
  })

  /** Through the group writer, committed before the call answers. */
  const grouped = leafWithSpan("Executor.audit")((span: Tracer.Span, call: Enveloped) =>
    Effect.map(log.record(succeeded(call), span), recorded(call))
  )

  /** In the caller's transaction: the row commits with the call's effects or not at all. */
  const inTransaction = step("Executor.audit")((call: Enveloped) =>
    Effect.map(Effect.suspend(() => log.recordInTransaction(succeeded(call))), recorded(call))
  )

  /**
   * The row of a call that failed: its one row, when it failed before its own audit step; a second row, when a
   * read call failed after its commit (the first says what committed). A row that cannot be written is logged, not fatal.
   */
  const failed = leafWithSpan("Executor.audit")(Effect.fnUntraced(
    function* (span: Tracer.Span, request: Request, tool: Option.Option<RegisteredTool>, cause: Cause.Cause<{ readonly _tag: string }>) {
      yield* log.record(entryOf(request, tool, { ok: false, cause }, request.context.connectionId ?? null), span).pipe(Effect.ignore)
    }
  ))

  return { grouped, inTransaction, failed }
}
