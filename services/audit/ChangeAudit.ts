import { SqlClient } from "@effect/sql"
import { Clock, Effect } from "effect"
import { AuditUnavailable } from "../../schema/Errors.ts"
import type { Surface } from "../../schema/Principal.ts"
import { newId } from "../Ids.ts"
import { AuditLog } from "./AuditLog.ts"
import { digestOf } from "./Chain.ts"

/** What an audited change says about itself: the input and output are digested, so pass them without secrets. */
export interface Change {
  readonly workspaceId: string
  readonly principal: string
  readonly surface: Surface
  readonly toolId: string
  readonly connectionId: string | null
  readonly input: unknown
  readonly output: unknown
}

/** A change to keys or connections and its audit row commit together, in the workspace's chain. */
export class ChangeAudit extends Effect.Service<ChangeAudit>()("brein/audit/ChangeAudit", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const audit = yield* AuditLog

    /** Runs `run` and records the change `describe` makes of its result; null when nothing changed. */
    const audited = Effect.fn("ChangeAudit.audited")(
      function*<A, E, R> (run: Effect.Effect<A, E, R>, describe: (result: A) => Change | null) {
        const started = yield* Clock.currentTimeNanos
        const requestId = yield* newId("req")
        return yield* Effect.gen(function* () {
          const result = yield* run
          const change = describe(result)
          if (change === null) return result
          const now = yield* Clock.currentTimeNanos
          yield* audit.recordInTransaction({
            requestId,
            at: new Date(Number(started / 1_000_000n)),
            workspaceId: change.workspaceId,
            principal: change.principal,
            surface: change.surface,
            toolId: change.toolId,
            plane: "action",
            connectionId: change.connectionId,
            inputDigest: digestOf(change.input),
            outputDigest: digestOf(change.output),
            outcome: "ok",
            errorTag: null,
            latencyMs: Math.round(Number(now - started) / 10_000) / 100,
            cost: "free"
          })
          return result
        }).pipe(
          sql.withTransaction,
          Effect.catchTag("SqlError", () => new AuditUnavailable({ message: "the change could not be committed" }))
        )
      }
    )

    return { audited }
  }),
  dependencies: [AuditLog.Default]
}) {}
