import { SqlClient } from "@effect/sql"
import { Clock, Effect } from "effect"
import type { UpdateCredentials } from "../../schema/connections/Connection.ts"
import { AuditUnavailable } from "../../schema/Errors.ts"
import type { Principal, Surface } from "../../schema/Principal.ts"
import { AuditLog } from "../audit/AuditLog.ts"
import { digestOf } from "../audit/Chain.ts"
import { newId } from "../Ids.ts"
import { Connections } from "./Connections.ts"

export const UPDATE_CREDENTIALS = "connections.credentials.update"

/** Replacing a connection's credentials: the change and its audit row (which never holds the secret) commit together. */
export class ConnectionCredentials extends Effect.Service<ConnectionCredentials>()("brein/connections/ConnectionCredentials", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const connections = yield* Connections
    const audit = yield* AuditLog

    const replace = Effect.fn("ConnectionCredentials.replace")(
      function* (principal: Principal, id: string, input: UpdateCredentials, surface: Surface) {
        const started = yield* Clock.currentTimeNanos
        const requestId = yield* newId("req")
        return yield* Effect.gen(function* () {
          const view = yield* connections.replaceCredentials(principal, id, input.credentials)
          const now = yield* Clock.currentTimeNanos
          yield* audit.recordInTransaction({
            requestId,
            at: new Date(Number(started / 1_000_000n)),
            workspaceId: principal.workspaceId,
            principal: principal.keyId ?? `in-process:${surface}`,
            surface,
            toolId: UPDATE_CREDENTIALS,
            plane: "action",
            connectionId: id,
            inputDigest: digestOf({ id }),
            outputDigest: digestOf(view),
            outcome: "ok",
            errorTag: null,
            latencyMs: Math.round(Number(now - started) / 10_000) / 100,
            cost: "free"
          })
          return view
        }).pipe(
          sql.withTransaction,
          Effect.catchTag("SqlError", () => new AuditUnavailable({ message: "the change could not be committed" }))
        )
      }
    )

    return { replace }
  }),
  dependencies: [AuditLog.Default]
}) {}
