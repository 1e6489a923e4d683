import { SqlClient } from "@effect/sql"
import { Cause, Clock, Effect, Exit, Option } from "effect"
import { AuditUnavailable, ServiceUnavailable, ToolFailed, ToolNotFound } from "../../schema/Errors.ts"
import { isTransient } from "../Database.ts"
import type { CallContext } from "../../schema/Principal.ts"
import type { EnvelopeExtras } from "../../schema/tools/Envelope.ts"
import type { AuditStatus, ToolResponse } from "../../schema/tools/Response.ts"
import type { ToolError } from "../../schema/tools/ToolError.ts"
import { AuditLog } from "../audit/AuditLog.ts"
import { digestOf } from "../audit/Chain.ts"
import { newId } from "../Ids.ts"
import { Registry, type RegisteredTool } from "../tools/Registry.ts"
import { Authorize } from "./Authorize.ts"
import type { PersistApi } from "./Persist.ts"

const IN_PROCESS = new Set(["luna", "library"])

/** A readOnly action writes nothing: it needs no transaction, and its row goes through the group writer. */
const writesNothing = (tool: RegisteredTool) => tool.descriptor.plane === "action" && tool.descriptor.hints.readOnly

/** A call that changes or spends nothing may answer with audit_status "failed"; any other fails. */
const isPure = (tool: RegisteredTool) => writesNothing(tool) && tool.descriptor.cost.kind === "free"

/** The one executor every surface calls: resolve, decode, authorize, run, audit, answer. */
export class Executor extends Effect.Service<Executor>()("brein/pipeline/Executor", {
  effect: Effect.gen(function* () {
    const registry = yield* Registry
    const authorize = yield* Authorize
    const audit = yield* AuditLog
    const sql = yield* SqlClient.SqlClient

    const call = Effect.fn("Executor.call")(function* (toolId: string, rawInput: unknown, context: CallContext) {
      const started = yield* Clock.currentTimeNanos
      const requestId = context.requestId ?? (yield* newId("req"))
      const principal = context.principal
      yield* Effect.annotateCurrentSpan({ toolId, requestId, surface: context.surface })
      const elapsedMs = Effect.map(Clock.currentTimeNanos, (now) => Math.round(Number(now - started) / 10_000) / 100)

      const tool = Option.filter(registry.get(toolId), (t) => t.descriptor.external || IN_PROCESS.has(context.surface))
      const extras: { -readonly [K in keyof EnvelopeExtras]: EnvelopeExtras[K] } = {}

      const entry = (outcome: Exit.Exit<unknown, ToolError>, connectionId: string | null) =>
        Effect.map(elapsedMs, (latencyMs) => ({
          requestId,
          at: new Date(Number(started / 1_000_000n)),
          workspaceId: principal.workspaceId,
          principal: principal.keyId ?? `in-process:${context.surface}`,
          surface: context.surface,
          toolId,
          plane: Option.match(tool, { onNone: () => "action" as const, onSome: (t) => t.descriptor.plane }),
          connectionId,
          inputDigest: digestOf(rawInput),
          outputDigest: Exit.isSuccess(outcome) ? digestOf(outcome.value) : null,
          outcome: Exit.isSuccess(outcome) ? ("ok" as const) : ("error" as const),
          errorTag: Exit.isSuccess(outcome) ? null : Option.match(Cause.failureOption(outcome.cause), { onNone: () => "Defect", onSome: (e) => e._tag }),
          latencyMs,
          cost: Option.match(tool, { onNone: () => "free", onSome: (t) => t.descriptor.cost.kind })
        }))

      let audited = false
      const record = (outcome: Exit.Exit<unknown, ToolError>, connectionId: string | null, inTransaction = false) =>
        Effect.suspend(() => {
          audited = true
          return Effect.flatMap(entry(outcome, connectionId), inTransaction ? audit.recordInTransaction : audit.record)
        })

      const run = Effect.gen(function* () {
        const found = yield* Option.match(tool, { onNone: () => Effect.fail(ToolNotFound.of(toolId)), onSome: Effect.succeed })
        const prepared = yield* found.prepare(rawInput)
        const connectionId = yield* authorize.check(found, principal, context.connectionId)
        const info = {
          requestId,
          surface: context.surface,
          principal,
          connectionId,
          annotate: (more: EnvelopeExtras) => void Object.assign(extras, more),
          progress: context.onProgress ?? (() => Effect.void)
        }
        const handler = (persist: Option.Option<PersistApi>) =>
          prepared(info, Option.getOrNull(persist)).pipe(
            Effect.catchAllDefect((defect): Effect.Effect<never, ServiceUnavailable | ToolFailed> =>
              isTransient(defect)
                ? Effect.logWarning("database unavailable: the call answers ServiceUnavailable", defect).pipe(
                  Effect.zipRight(Effect.fail(ServiceUnavailable.database))
                )
                : Effect.logError("tool handler died", defect).pipe(
                Effect.zipRight(Effect.fail(new ToolFailed({ toolId, message: "the tool failed unexpectedly" })))
              )
            )
          )
        if (writesNothing(found)) {
          const exit = yield* Effect.exit(handler(Option.none()))
          const recorded = record(exit, connectionId).pipe(Effect.map(Option.some))
          // A call that spends (a read against the hourly ceiling, credits) fails without its audit row.
          const row = yield* isPure(found)
            ? Effect.catchTag(recorded, "AuditUnavailable", () => Effect.succeedNone)
            : recorded
          const status: AuditStatus = Option.isSome(row) ? "recorded" : "failed"
          return { data: yield* exit, status, row }
        }
        // Everything else runs in a transaction that commits only once its audit row is recorded.
        const persist = found.descriptor.plane === "read"
          ? Option.some({ sql, workspaceId: principal.workspaceId, connectionId, connector: found.descriptor.connector })
          : Option.none()
        const { data, row } = yield* Effect.gen(function* () {
          const exit = yield* Effect.exit(handler(persist))
          const row = Exit.isSuccess(exit) ? yield* record(exit, connectionId, true) : null
          return { data: yield* exit, row: Option.fromNullable(row) }
        }).pipe(sql.withTransaction, Effect.catchTag("SqlError", (error): Effect.Effect<never, ServiceUnavailable | AuditUnavailable> =>
          isTransient(error)
            ? Effect.zipRight(Effect.logWarning("database unavailable: the call answers ServiceUnavailable", error), Effect.fail(ServiceUnavailable.database))
            : Effect.fail(new AuditUnavailable({ message: "the call could not be committed" }))
        ))
        return { data, status: "recorded" as const, row }
      })

      const exit = yield* Effect.exit(run)
      if (Exit.isFailure(exit)) {
        if (!audited) yield* record(exit, context.connectionId ?? null).pipe(Effect.ignore)
        return yield* Effect.failCause(exit.cause)
      }
      const response: ToolResponse = {
        data: exit.value.data,
        ...extras,
        meta: {
          request_id: requestId,
          tool_id: toolId,
          plane: Option.match(tool, { onNone: () => "action" as const, onSome: (t) => t.descriptor.plane }),
          latency_ms: yield* elapsedMs,
          audit_status: exit.value.status,
          ...Option.match(exit.value.row, {
            onNone: () => ({}),
            onSome: (row) => ({ receipt: { chain: row.chain, seq: row.seq, digest: row.digest } })
          })
        }
      }
      return response
    })

    return { call }
  }),
  dependencies: [Authorize.Default, AuditLog.Default]
}) {}
