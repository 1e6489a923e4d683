import { SqlClient } from "@effect/sql"
import { Array as Arr, Effect, Option, Redacted, Schema } from "effect"
import {
  type ConnectionState,
  ConnectionNotFound,
  type ConnectionView,
  ConnectorName,
  type CreateConnection,
  Credentials
} from "../../schema/connections/Connection.ts"
import { Forbidden, InvalidInput } from "../../schema/Errors.ts"
import { ConnectionId } from "../../schema/Ids.ts"
import type { Principal } from "../../schema/Principal.ts"
import { sha256 } from "../audit/Chain.ts"
import { newId } from "../Ids.ts"
import { ConnectionLookup } from "./ConnectionLookup.ts"
import { Vault } from "./Vault.ts"

const Row = Schema.Struct({
  id: ConnectionId,
  connector: ConnectorName,
  institution: Schema.NullOr(Schema.String),
  state: Schema.Literal("pendiente", "sincronizando", "sincronizada", "error"),
  stateReason: Schema.NullOr(Schema.String),
  createdAt: Schema.DateFromSelf
})
const CoverageRow = Schema.Struct({
  scope: Schema.Record({ key: Schema.String, value: Schema.String }),
  syncedAt: Schema.DateFromSelf,
  completo: Schema.Boolean
})
const decodeRows = Schema.decodeUnknown(Schema.Array(Row))

/** A connection as an operator sees it: never its credentials. */
export const ConnectionSummary = Schema.Struct({
  id: ConnectionId,
  workspace: Schema.String,
  connector: Schema.String,
  institution: Schema.NullOr(Schema.String),
  state: Schema.String,
  reason: Schema.NullOr(Schema.String),
  createdAt: Schema.DateFromSelf
})
export type ConnectionSummary = typeof ConnectionSummary.Type
const decodeSummaries = Schema.decodeUnknown(Schema.Array(ConnectionSummary))
const decodeCoverage = Schema.decodeUnknown(Schema.Array(CoverageRow))
const SealedRow = Schema.Struct({ connector: ConnectorName, institution: Schema.NullOr(Schema.String), credentials: Schema.String })
const decodeSealed = Schema.decodeUnknown(Schema.Array(SealedRow))
const CredentialsJson = Schema.parseJson(Credentials)

/** The upstream login a connection holds: decrypted only for the sync worker. */
export interface OpenedCredentials {
  readonly connector: ConnectorName
  readonly institution: string | null
  readonly credentials: Credentials
}

/** One upstream user: two connections with the same login share one upstream session. */
export const sessionKey = (connector: string, institution: string | null, rut: string) =>
  sha256(`${connector}|${institution ?? ""}|${rut}`)

export class Connections extends Effect.Service<Connections>()("brein/connections/Connections", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const vault = yield* Vault
    const lookup = yield* ConnectionLookup

    const view = (row: typeof Row.Type) =>
      sql`SELECT scope, synced_at, completo FROM sync_coverage WHERE connection_id = ${row.id} ORDER BY scope_key`.pipe(
        Effect.flatMap(decodeCoverage),
        Effect.orDie,
        Effect.map((coverage): ConnectionView => ({
          id: row.id,
          connector: row.connector,
          institution: row.institution,
          state: row.state,
          reason: row.stateReason,
          createdAt: row.createdAt.toISOString(),
          coverage: coverage.map((c) => ({ scope: c.scope, sincronizadoEn: c.syncedAt.toISOString(), completo: c.completo }))
        }))
      )

    const find = (principal: Principal, id: string) =>
      sql`SELECT id, connector, institution, state, state_reason, created_at FROM connections
          WHERE id = ${id} AND workspace_id = ${principal.workspaceId}`.pipe(
        Effect.flatMap(decodeRows),
        Effect.orDie,
        Effect.flatMap(Arr.head),
        Effect.mapError(() => new ConnectionNotFound({ connectionId: id, message: `no connection ${id} in this workspace` }))
      )

    const create = Effect.fn("Connections.create")(function* (principal: Principal, input: CreateConnection) {
      if (principal.plan !== "paid") {
        return yield* new Forbidden({ reason: "plan_required", message: `${input.connector} is a paid connector; "${principal.workspaceName}" is on the free plan` })
      }
      if (input.connector === "banco" && input.institution === undefined) {
        return yield* new InvalidInput({ message: "institution: a banco connection names its bank", issues: [{ path: "institution", message: "is missing" }] })
      }
      const institution = input.connector === "banco" ? input.institution ?? null : null
      const id = yield* newId("conn")
      const sealed = yield* vault.seal(JSON.stringify({ rut: input.credentials.rut, clave: Redacted.value(input.credentials.clave) }))
      yield* sql`INSERT INTO connections (id, workspace_id, connector, institution, credentials)
                 VALUES (${id}, ${principal.workspaceId}, ${input.connector}, ${institution}, ${sealed})`.pipe(Effect.orDie)
      return yield* Effect.flatMap(Effect.orDie(find(principal, id)), view)
    })

    const get = Effect.fn("Connections.get")(function* (principal: Principal, id: string) {
      return yield* Effect.flatMap(find(principal, id), view)
    })

    const list = Effect.fn("Connections.list")(function* (principal: Principal) {
      const rows = yield* sql`SELECT id, connector, institution, state, state_reason, created_at FROM connections
                              WHERE workspace_id = ${principal.workspaceId} ORDER BY created_at`.pipe(Effect.flatMap(decodeRows), Effect.orDie)
      return yield* Effect.forEach(rows, view)
    })

    /** Every connection, or a workspace's, for operators (`brein connections list`). */
    const summaries = Effect.fn("Connections.summaries")(function* (workspace: Option.Option<string>) {
      const filter = Option.match(workspace, { onNone: () => sql`true`, onSome: (name) => sql`w.name = ${name}` })
      return yield* sql`SELECT c.id, w.name AS workspace, c.connector, c.institution, c.state, c.state_reason AS reason, c.created_at
                        FROM connections c JOIN workspaces w ON w.id = c.workspace_id
                        WHERE ${filter} ORDER BY w.name, c.created_at`.pipe(Effect.flatMap(decodeSummaries), Effect.orDie)
    })

    const remove = Effect.fn("Connections.remove")(function* (principal: Principal, id: string) {
      yield* find(principal, id)
      yield* sql`DELETE FROM connections WHERE id = ${id}`.pipe(Effect.zipRight(lookup.forget(id)), sql.withTransaction, Effect.orDie)
    })

    const open = Effect.fn("Connections.open")(function* (id: string) {
      const row = yield* sql`SELECT connector, institution, credentials FROM connections WHERE id = ${id}`.pipe(
        Effect.flatMap(decodeSealed),
        Effect.orDie,
        Effect.map(Arr.head),
        Effect.flatMap(Effect.orDieWith(() => `connection ${id} vanished`))
      )
      const credentials = yield* vault.open(row.credentials).pipe(Effect.flatMap(Schema.decode(CredentialsJson)), Effect.orDie)
      return { connector: row.connector, institution: row.institution, credentials } satisfies OpenedCredentials
    })

    const setState = (id: string, state: ConnectionState, reason: string | null) =>
      sql`UPDATE connections SET state = ${state}, state_reason = ${reason}, updated_at = now() WHERE id = ${id}`.pipe(Effect.orDie, Effect.asVoid)

    return { create, get, list, summaries, remove, open, setState }
  }),
  dependencies: [Vault.Default, ConnectionLookup.Default]
}) {}

