import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { ConnectionNotFound } from "../../schema/connections/Connection.ts"
import { ServiceUnavailable } from "../../schema/Errors.ts"
import { BreinApi } from "../../schema/http/Api.ts"
import { CurrentPrincipal } from "../../schema/http/Security.ts"
import { type ConnectionId, isConnectionId } from "../../schema/Ids.ts"
import type { Principal } from "../../schema/Principal.ts"
import { type Change, ChangeAudit } from "../../services/audit/ChangeAudit.ts"
import { ConnectionCredentials } from "../../services/connections/ConnectionCredentials.ts"
import { Connections } from "../../services/connections/Connections.ts"
import { VaultKeyUnusable } from "../../services/connections/Vault.ts"
import { SyncJobs, toView } from "../../services/sync/SyncJobs.ts"

/** A path id that is not a connection id names no connection: a 404 here, never a query with it (a NUL byte fails one). */
const wellFormed = (id: string): Effect.Effect<ConnectionId, ConnectionNotFound> =>
  isConnectionId(id)
    ? Effect.succeed(id)
    : Effect.fail(
      new ConnectionNotFound({
        connectionId: id.slice(0, 64),
        message: `no connection ${JSON.stringify(id.slice(0, 64))} in this workspace: a connection id looks like conn_…`
      })
    )

/**
 * Credentials the server cannot seal, its credentials key being unusable: the operator's to fix, so the
 * client gets a 503 to retry later and the log gets the reason and the fix (the file, the count).
 */
const sealable = <A, E, R>(effect: Effect.Effect<A, E | VaultKeyUnusable, R>): Effect.Effect<A, E | ServiceUnavailable, R> =>
  Effect.catchIf(
    effect,
    (error): error is VaultKeyUnusable => error instanceof VaultKeyUnusable,
    (error) =>
      Effect.logError("credentials cannot be sealed: the request answers 503", error.message).pipe(
        Effect.zipRight(Effect.fail(ServiceUnavailable.credentialsKey))
      )
  )

/** The audit row of a connection's change: its digests never cover the credentials. */
const connectionChange = (principal: Principal, toolId: string, connectionId: string, input: unknown, output: unknown): Change => ({
  workspaceId: principal.workspaceId,
  principal: principal.keyId ?? "in-process:http",
  surface: "http",
  toolId,
  connectionId,
  input,
  output
})

export const ConnectionsLive = HttpApiBuilder.group(BreinApi, "connections", (handlers) =>
  Effect.gen(function* () {
    const connections = yield* Connections
    const jobs = yield* SyncJobs
    const credentials = yield* ConnectionCredentials
    const changes = yield* ChangeAudit
    return handlers
      .handle("create", ({ payload }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          changes.audited(sealable(connections.create(principal, payload)), (view) =>
            connectionChange(principal, "connections.create", view.id, {
              connector: payload.connector,
              institution: payload.institution ?? null
            }, view))))
      .handle("list", () =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          Effect.map(connections.list(principal), (all) => ({ connections: all }))))
      .handle("get", ({ path }) =>
        Effect.flatMap(wellFormed(path.id), (id) =>
          Effect.flatMap(CurrentPrincipal, (principal) =>
            connections.get(principal, id))))
      .handle("updateCredentials", ({ path, payload }) =>
        Effect.flatMap(wellFormed(path.id), (id) =>
          Effect.flatMap(CurrentPrincipal, (principal) =>
            sealable(credentials.replace(principal, id, payload, "http")))))
      .handle("remove", ({ path }) =>
        Effect.flatMap(wellFormed(path.id), (id) =>
          Effect.flatMap(CurrentPrincipal, (principal) =>
            changes.audited(connections.remove(principal, id), () =>
              connectionChange(principal, "connections.delete", id, { id }, null)))))
      .handle("jobs", ({ path, urlParams }) =>
        Effect.gen(function* () {
          const connection = yield* connections.get(yield* CurrentPrincipal, yield* wellFormed(path.id))
          const rows = yield* jobs.list(connection.id, urlParams.limit ?? 50)
          return { jobs: rows.map(toView) }
        }))
  }))
