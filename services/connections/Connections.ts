import { SqlClient } from "@effect/sql"
import { Array as Arr, Effect, Option, Redacted, Schema } from "effect"
import {
  ConnectionNotFound,
  type ConnectionState,
  type ConnectionView,
  ConnectorName,
  type CreateConnection,
  Credentials
} from "../../schema/connections/Connection.ts"
import { Forbidden, InvalidInput } from "../../schema/Errors.ts"
import { ConnectionId } from "../../schema/Ids.ts"
import type { Principal } from "../../schema/Principal.ts"
import { sha256 } from "../Crypto.ts"
import { newId } from "../Ids.ts"
import { WorkspaceNotFound } from "../workspace/Workspaces.ts"
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
const SealedRow = Schema.Struct({
  connector: ConnectorName,
  institution: Schema.NullOr(Schema.String),
  credentials: Schema.String,
  state: Row.fields.state,
  stateReason: Schema.NullOr(Schema.String),
  credentialsGeneration: Schema.Int
})
const decodeSealed = Schema.decodeUnknown(Schema.Array(SealedRow))
const CredentialsJson = Schema.parseJson(Credentials)

/** The upstream login a connection holds: decrypted only for the sync worker. */
export interface OpenedCredentials {
  readonly connector: ConnectorName
  readonly institution: string | null
  readonly credentials: Credentials
  /** The upstream refused these credentials before: no login may be tried until they are replaced. */
  readonly refused: boolean
  /** Which credentials these are: one more each time they are replaced. */
  readonly generation: number
}

/** How a job that ended leaves its connection, unless other jobs of it are still open. */
export interface Ended {
  readonly state: ConnectionState
  readonly reason: string | null
}

/** What a connection in this state asks of its user, if anything. */
export const hintFor = (id: string, reason: string | null) =>
  reason === "credenciales_invalidas"
    ? `The upstream refused the stored credentials; brein will not log in with them again. Replace them with PATCH /api/v1/connections/${id} {"credentials": {...}}, then sync again.`
    : reason === "mfa_requerido"
    ? "The bank asks for a second factor: approve it in the bank's app, then sync again."
    : reason === "credenciales_ilegibles"
    ? `The server cannot open the stored credentials with its credentials key: its operator restores the key (the server's log says which), or you store them again with PATCH /api/v1/connections/${id} {"credentials": {...}}; then sync again.`
    : null

/** One upstream user: two connections with the same login share one upstream session. */
export const sessionKey = (connector: string, institution: string | null, rut: string) => sha256(`${connector}|${institution ?? ""}|${rut}`)

export class Connections extends Effect.Service<Connections>()("brein/connections/Connections", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const vault = yield* Vault
    const lookup = yield* ConnectionLookup

    const view = Effect.fn("Connections.view")(function* (row: typeof Row.Type) {
      const coverage = yield* sql`SELECT scope, synced_at, completo FROM sync_coverage WHERE connection_id = ${row.id} ORDER BY scope_key`
        .pipe(
          Effect.flatMap(decodeCoverage),
          Effect.orDie
        )
      return {
        id: row.id,
        connector: row.connector,
        institution: row.institution,
        state: row.state,
        reason: row.stateReason,
        hint: hintFor(row.id, row.stateReason),
        createdAt: row.createdAt.toISOString(),
        coverage: coverage.map((c) => ({ scope: c.scope, sincronizadoEn: c.syncedAt.toISOString(), completo: c.completo }))
      } satisfies ConnectionView
    })

    const notFound = (id: string) => new ConnectionNotFound({ connectionId: id, message: `no connection ${id} in this workspace` })

    const find = Effect.fn("Connections.find")(function* (principal: Principal, id: string) {
      const rows = yield* sql`SELECT id, connector, institution, state, state_reason, created_at FROM connections
          WHERE id = ${id} AND workspace_id = ${principal.workspaceId}`.pipe(Effect.flatMap(decodeRows), Effect.orDie)
      const row = Arr.head(rows)
      if (Option.isNone(row)) return yield* notFound(id)
      return row.value
    })

    const create = Effect.fn("Connections.create")(function* (principal: Principal, input: CreateConnection) {
      if (principal.plan !== "paid") {
        return yield* Forbidden.planRequired(`a ${input.connector} connection`, principal.workspaceName)
      }
      if (input.connector === "banco" && input.institution === undefined) {
        return yield* new InvalidInput({
          message: "institution: a banco connection names its bank",
          issues: [{ path: "institution", message: "is missing" }]
        })
      }
      if (input.connector !== "banco" && input.institution !== undefined) {
        return yield* new InvalidInput({
          message: `institution: only a banco connection names a bank; leave it out of a ${input.connector} connection`,
          issues: [{ path: "institution", message: `is not a field of a ${input.connector} connection` }]
        })
      }
      const institution = input.connector === "banco" ? input.institution ?? null : null
      const id = yield* newId("conn")
      // a credentials key that cannot be used (VaultKeyUnusable) is the operator's to fix: nothing is sealed or stored
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
                              WHERE workspace_id = ${principal.workspaceId} ORDER BY created_at`.pipe(
        Effect.flatMap(decodeRows),
        Effect.orDie
      )
      return yield* Effect.forEach(rows, view)
    })

    /** Every connection, or a workspace's, for operators (`brein connections list`). */
    const summaries = Effect.fn("Connections.summaries")(function* (workspace: Option.Option<string>) {
      if (Option.isSome(workspace)) {
        const [found] = yield* sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM workspaces WHERE name = ${workspace.value}`.pipe(
          Effect.orDie
        )
        if ((found?.n ?? 0) === 0) {
          return yield* new WorkspaceNotFound({ name: workspace.value, message: `no workspace named "${workspace.value}"` })
        }
      }
      const filter = Option.match(workspace, { onNone: () => sql`true`, onSome: (name) => sql`w.name = ${name}` })
      return yield* sql`SELECT c.id, w.name AS workspace, c.connector, c.institution, c.state, c.state_reason AS reason, c.created_at
                        FROM connections c JOIN workspaces w ON w.id = c.workspace_id
                        WHERE ${filter} ORDER BY w.name, c.created_at`.pipe(Effect.flatMap(decodeSummaries), Effect.orDie)
    })

    /** Deletes a connection; the DELETE is the lookup, so of two at once the one that finds the row gone is refused. */
    const remove = Effect.fn("Connections.remove")(
      function* (principal: Principal, id: string) {
        const deleted = yield* sql`DELETE FROM connections WHERE id = ${id} AND workspace_id = ${principal.workspaceId} RETURNING id`
        if (deleted.length === 0) return yield* notFound(id)
        yield* lookup.forget(id)
      },
      sql.withTransaction,
      Effect.catchTag("SqlError", Effect.die)
    )

    const open = Effect.fn("Connections.open")(function* (id: string) {
      const row = yield* sql`SELECT connector, institution, credentials, state, state_reason, credentials_generation
                             FROM connections WHERE id = ${id}`.pipe(
        Effect.flatMap(decodeSealed),
        Effect.orDie,
        Effect.map(Arr.head),
        Effect.flatMap(Effect.orDieWith(() => `connection ${id} vanished`))
      )
      // a key that cannot open them fails typed (VaultKeyUnusable): the sync says so, the operator fixes it
      const credentials = yield* vault.open(row.credentials).pipe(
        Effect.flatMap((text) => Effect.orDie(Schema.decode(CredentialsJson)(text)))
      )
      const refused = row.state === "error" && row.stateReason === "credenciales_invalidas"
      return {
        connector: row.connector,
        institution: row.institution,
        credentials,
        refused,
        generation: row.credentialsGeneration
      } satisfies OpenedCredentials
    })

    /**
     * Replaces a connection's credentials: sealed again, and the connection starts over as `pendiente`,
     * its credentials' generation one more, so no job that logged in with the old ones settles it.
     * Run in the caller's transaction: the row is held from the lookup on, so a connection deleted
     * meanwhile is not found, not half replaced. The RUT stays the connection's: its cache is one
     * taxpayer's data, and another's synced into it would be summed with it.
     */
    const replaceCredentials = Effect.fn("Connections.replaceCredentials")(
      function* (principal: Principal, id: string, credentials: Credentials) {
        if (principal.plan !== "paid") return yield* Forbidden.credentialsPlanRequired(id, principal.workspaceName)
        const held = yield* sql`SELECT connector, institution, credentials, state, state_reason, credentials_generation
                 FROM connections WHERE id = ${id} AND workspace_id = ${principal.workspaceId} FOR UPDATE`.pipe(
          Effect.flatMap(decodeSealed),
          Effect.orDie,
          Effect.map(Arr.head)
        )
        if (Option.isNone(held)) return yield* notFound(id)
        // credentials the key can no longer open cannot be compared: replacing them is how access is restored
        const current = yield* vault.open(held.value.credentials).pipe(
          Effect.flatMap((text) => Effect.orDie(Schema.decode(CredentialsJson)(text))),
          Effect.option
        )
        if (Option.isSome(current) && current.value.rut !== credentials.rut) {
          return yield* new InvalidInput({
            message: "credentials.rut must be the RUT this connection was made with: its cached data is that taxpayer's. " +
              "To sync another RUT, create a connection for it (POST /api/v1/connections)",
            issues: [{ path: "credentials.rut", message: "must be the RUT this connection was made with" }]
          })
        }
        const sealed = yield* vault.seal(JSON.stringify({ rut: credentials.rut, clave: Redacted.value(credentials.clave) }))
        const rows = yield* sql`UPDATE connections SET credentials = ${sealed}, credentials_generation = credentials_generation + 1,
                   state = 'pendiente', state_reason = NULL, updated_at = now()
                 WHERE id = ${id} AND workspace_id = ${principal.workspaceId}
                 RETURNING id, connector, institution, state, state_reason, created_at`.pipe(Effect.flatMap(decodeRows), Effect.orDie)
        const row = Arr.head(rows)
        if (Option.isNone(row)) return yield* notFound(id)
        return yield* view(row.value)
      }
    )

    /**
     * Serializes the transactions that end jobs of one connection, so the last to commit sees the others
     * (and a replacement of its credentials commits before them or after them). False when the connection
     * is gone (deleted while its jobs ran).
     */
    const lock = Effect.fn("Connections.lock")(function* (id: string) {
      const rows = yield* sql`SELECT 1 FROM connections WHERE id = ${id} FOR UPDATE`.pipe(Effect.orDie)
      return rows.length > 0
    })

    /**
     * The connection's state after jobs ended, in their transaction: still syncing while any job of it is
     * open. Only jobs that logged in with its current credentials (`generation`) set it: after a
     * replacement it stays `pendiente` until a sync tries the new ones. False when it was left as it was.
     */
    const settle = Effect.fn("Connections.settle")(function* (id: string, generation: number, ended: Ended, whileOpen: string | null) {
      return yield* sql`UPDATE connections c SET
            state = CASE WHEN o.open THEN 'sincronizando' ELSE ${ended.state}::text END,
            state_reason = CASE WHEN o.open THEN ${whileOpen}::text ELSE ${ended.reason}::text END,
            updated_at = now()
          FROM (SELECT EXISTS (SELECT 1 FROM sync_jobs WHERE connection_id = ${id} AND state IN ('en_cola', 'sincronizando')) AS open) o
          WHERE c.id = ${id} AND c.credentials_generation = ${generation}
          RETURNING c.id`.pipe(Effect.orDie, Effect.map((rows) => rows.length > 0))
    })

    return { create, get, list, summaries, remove, open, replaceCredentials, lock, settle }
  }),
  dependencies: [Vault.Default, ConnectionLookup.Default]
}) {}
