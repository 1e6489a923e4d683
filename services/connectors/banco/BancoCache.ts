import { SqlClient } from "@effect/sql"
import { Array as Arr, Effect, Option, Schema } from "effect"
import { JobState, Progress } from "../../../schema/connections/SyncJob.ts"
import { Account, AccountId, AccountType, Movement, MovementId } from "../../../schema/upstream/Banco.ts"
import { Fecha } from "../../../schema/upstream/Fecha.ts"
import { decodeHistory } from "../../sync/CacheHistory.ts"
import { CuentasResource, MovimientosResource } from "./BancoResources.ts"
import type { MovimientoCursor } from "./MovimientoCursor.ts"

const CuentaRow = Schema.Struct({
  accountId: AccountId,
  type: AccountType,
  name: Schema.String,
  officialName: Schema.String,
  number: Account.fields.number,
  currency: Account.fields.currency,
  balanceAvailable: Schema.Number,
  balanceCurrent: Schema.Number,
  balanceLimit: Schema.NullOr(Schema.Number),
  version: Schema.Number
})
const decodeCuentas = Schema.decodeUnknown(Schema.Array(CuentaRow))

const MovimientoRow = Schema.Struct({
  rowId: Schema.Number,
  movementId: MovementId,
  accountId: AccountId,
  periodo: Schema.String,
  postDate: Fecha,
  transactionDate: Fecha,
  amount: Schema.Number,
  balance: Schema.Number,
  currency: Account.fields.currency,
  description: Schema.String,
  comment: Schema.NullOr(Schema.String),
  pending: Schema.Boolean,
  referenceId: Movement.fields.referenceId,
  type: Movement.fields.type,
  version: Schema.Number
})
export type MovimientoRow = typeof MovimientoRow.Type
const decodeMovimientos = Schema.decodeUnknown(Schema.Array(MovimientoRow))

const CoverageRow = Schema.Struct({ scopeKey: Schema.String, syncedAt: Schema.DateFromSelf, completo: Schema.Boolean })
const decodeCoverage = Schema.decodeUnknown(Schema.Array(CoverageRow))

const OpenJobRow = Schema.Struct({ id: Schema.String, state: JobState, progress: Progress })
const decodeOpenJobs = Schema.decodeUnknown(Schema.Array(OpenJobRow))

export interface MovimientosFilter {
  readonly connectionId: string
  readonly desde: string
  readonly hasta: string
  readonly cuenta?: string
  readonly after: Option.Option<MovimientoCursor>
  readonly limit: number
}

/** Reads of the bank cache and its sync bookkeeping: never the bank. */
export class BancoCache extends Effect.Service<BancoCache>()("brein/connectors/banco/BancoCache", {
  effect: Effect.map(SqlClient.SqlClient, (sql) => {
    const cuentas = Effect.fn("BancoCache.cuentas")(function* (connectionId: string) {
      return yield* sql`SELECT account_id, type, name, official_name, number, currency, balance_available::float8 AS balance_available,
                 balance_current::float8 AS balance_current, balance_limit::float8 AS balance_limit, version
          FROM ${sql(CuentasResource.table)} WHERE connection_id = ${connectionId}
          ORDER BY type, account_id`.pipe(Effect.flatMap(decodeCuentas), Effect.orDie)
    })

    const movimientos = Effect.fn("BancoCache.movimientos")(function* (f: MovimientosFilter) {
      return yield* sql`SELECT id::float8 AS row_id, movement_id, account_id, periodo, to_char(post_date, 'YYYY-MM-DD') AS post_date,
                 to_char(transaction_date, 'YYYY-MM-DD') AS transaction_date, amount::float8 AS amount, balance::float8 AS balance,
                 currency, description, comment, pending, reference_id, type, version
          FROM ${sql(MovimientosResource.table)}
          WHERE connection_id = ${f.connectionId} AND post_date BETWEEN ${f.desde}::date AND ${f.hasta}::date
            ${f.cuenta === undefined ? sql`` : sql`AND account_id = ${f.cuenta}`}
            ${Option.match(f.after, { onNone: () => sql``, onSome: (c) => sql`AND (post_date, id) > (${c.postDate}::date, ${c.id})` })}
          ORDER BY bank_movements.post_date, bank_movements.id LIMIT ${f.limit + 1}`.pipe(Effect.flatMap(decodeMovimientos), Effect.orDie)
    })

    const history = Effect.fn("BancoCache.history")(function* (connectionId: string, keys: ReadonlyArray<string>) {
      if (keys.length === 0) return []
      return yield* sql`SELECT natural_key, version, snapshot, valid_from, valid_to FROM cache_history
              WHERE connection_id = ${connectionId} AND resource = ${MovimientosResource.resource} AND natural_key IN ${sql.in(keys)}
              ORDER BY natural_key, version`.pipe(Effect.flatMap(decodeHistory), Effect.orDie)
    })

    /** Coverage of the given scopes; with none given, the latest of the connection. */
    const coverage = Effect.fn("BancoCache.coverage")(function* (connectionId: string, scopeKeys?: ReadonlyArray<string>) {
      return yield* sql`SELECT scope_key, synced_at, completo FROM sync_coverage WHERE connection_id = ${connectionId}
          ${scopeKeys === undefined ? sql`ORDER BY synced_at DESC LIMIT 1` : sql`AND scope_key IN ${sql.in(scopeKeys)}`}`.pipe(
        Effect.flatMap(decodeCoverage),
        Effect.orDie
      )
    })

    /** The oldest sync under way among the given scopes (any scope of the connection when none given). */
    const openJob = Effect.fn("BancoCache.openJob")(function* (connectionId: string, scopeKeys?: ReadonlyArray<string>) {
      return yield* sql`SELECT id, state, progress FROM sync_jobs
          WHERE connection_id = ${connectionId} AND state IN ('en_cola', 'sincronizando')
            ${scopeKeys === undefined ? sql`` : sql`AND scope_key IN ${sql.in(scopeKeys)}`}
          ORDER BY created_at, id LIMIT 1`.pipe(
        Effect.flatMap(decodeOpenJobs),
        Effect.orDie,
        Effect.map(Arr.head),
        Effect.map(Option.map((j) => ({ trabajo: j.id, estado: j.state, progreso: { done: j.progress.done, total: j.progress.total } })))
      )
    })

    return { cuentas, movimientos, history, coverage, openJob }
  })
}) {}
