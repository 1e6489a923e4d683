import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { Account, AccountId, AccountType, Movement, MovementId } from "../../../schema/upstream/Banco.ts"
import { Fecha } from "../../../schema/upstream/Fecha.ts"
import { readSnapshot } from "../../Database.ts"
import { decodeHistory } from "../../sync/CacheHistory.ts"
import { isoText, latestStatusJoins, STATUS_COLUMNS, StatusColumns, statusOf, statusOfRow } from "../../sync/Coverage.ts"
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

const CUENTA_COLUMNS = `account_id, type, name, official_name, number, currency, balance_available::float8 AS balance_available,
  balance_current::float8 AS balance_current, balance_limit::float8 AS balance_limit, version`

/** What a page of movements says of its months: those covered, the least recent sync among them, the oldest sync under way and the months of every one. */
const decodeCoverageOfMonths = Schema.decodeUnknown(
  Schema.Struct({
    ...StatusColumns.fields,
    coveredPeriodos: Schema.NullOr(Schema.Array(Schema.String)),
    periodosUnderWay: Schema.NullOr(Schema.Array(Schema.String))
  })
)

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
      return yield* sql`SELECT ${sql.literal(CUENTA_COLUMNS)} FROM ${sql(CuentasResource.table)} WHERE connection_id = ${connectionId}
          ORDER BY type, account_id`.pipe(Effect.flatMap(decodeCuentas), Effect.orDie)
    })

    /**
     * The accounts beside the connection's status (its latest sync, any sync under way) in one statement: the
     * balances and the sync they are as of come from one snapshot, even while a sync commits.
     */
    const cuentasWithStatus = Effect.fn("BancoCache.cuentasWithStatus")(function* (connectionId: string) {
      const rows = yield* sql`SELECT ${sql.literal(STATUS_COLUMNS)}, a.*
          FROM (SELECT 1) one ${latestStatusJoins(sql, connectionId)}
          LEFT JOIN LATERAL (SELECT ${sql.literal(CUENTA_COLUMNS)} FROM ${sql(CuentasResource.table)}
                             WHERE connection_id = ${connectionId} ORDER BY type, account_id) a ON true`.pipe(Effect.orDie)
      const status = yield* statusOfRow(rows[0])
      return { cuentas: yield* decodeCuentas(rows.filter((row) => row["accountId"] != null)).pipe(Effect.orDie), ...status }
    })

    /**
     * A page of movements beside the coverage of the months it spans and the syncs under way among them (the
     * oldest, and the months of every one), in one statement: what the page holds and what it says of its months come from one snapshot, so a month a
     * sync commits meanwhile is not called synced beside a page read before it (empty would then read as "no
     * movements"). A page of none is one row of that status alone.
     */
    const movimientos = Effect.fn("BancoCache.movimientos")(function* (f: MovimientosFilter, periodos: ReadonlyArray<string>) {
      // The months as their bounds, two parameters whatever the range: one per month passed PostgreSQL's
      // 65,535 for a range of centuries.
      const ofMonths = sql`(scope ->> 'periodo') BETWEEN ${periodos[0] ?? ""} AND ${periodos[periodos.length - 1] ?? ""}`
      const rows = yield* sql`SELECT c.periodos AS "coveredPeriodos", ${sql.literal(isoText("c.oldest"))} AS "syncedAt", c.completo,
                 j.id AS "jobId", j.state AS "jobState", j.progress, j.periodos AS "periodosUnderWay", m.*
          FROM (SELECT 1) one
          LEFT JOIN LATERAL (SELECT array_agg(scope ->> 'periodo') AS periodos, min(synced_at) AS oldest, bool_and(completo) AS completo
                             FROM sync_coverage WHERE connection_id = ${f.connectionId} AND ${ofMonths}) c ON true
          LEFT JOIN LATERAL (SELECT id, state, progress, periodos FROM (
                               SELECT id, state, progress, created_at, seq, array_agg(scope ->> 'periodo') OVER () AS periodos FROM sync_jobs
                               WHERE connection_id = ${f.connectionId} AND state IN ('en_cola', 'sincronizando') AND ${ofMonths}) open
                             ORDER BY created_at, seq LIMIT 1) j ON true
          LEFT JOIN LATERAL (
            SELECT id::float8 AS row_id, movement_id, account_id, periodo, to_char(post_date, 'YYYY-MM-DD') AS post_date,
                   to_char(transaction_date, 'YYYY-MM-DD') AS transaction_date, amount::float8 AS amount, balance::float8 AS balance,
                   currency, description, comment, pending, reference_id, type, version
            FROM ${sql(MovimientosResource.table)}
            WHERE connection_id = ${f.connectionId} AND post_date BETWEEN ${f.desde}::date AND ${f.hasta}::date
              ${f.cuenta === undefined ? sql`` : sql`AND account_id = ${f.cuenta}`}
              ${Option.match(f.after, { onNone: () => sql``, onSome: (c) => sql`AND (post_date, id) > (${c.postDate}::date, ${c.id})` })}
            ORDER BY bank_movements.post_date, bank_movements.id LIMIT ${f.limit + 1}) m ON true`.pipe(Effect.orDie)
      const first = yield* decodeCoverageOfMonths(rows[0]).pipe(Effect.orDie)
      const covered = new Set(first.coveredPeriodos ?? [])
      const missing = periodos.filter((periodo) => !covered.has(periodo))
      const open = new Set(first.periodosUnderWay ?? [])
      // Synced as of the least recent of its months, and complete when all of them are: once none is missing.
      const status = statusOf(first)
      return {
        rows: yield* decodeMovimientos(rows.filter((row) => row["rowId"] != null)).pipe(Effect.orDie),
        missing,
        /** The months with a sync under way (queued or running). */
        underWay: periodos.filter((periodo) => open.has(periodo)),
        sincronizacion: missing.length > 0 ? null : status.sincronizacion,
        sincronizacionEnCurso: status.sincronizacionEnCurso
      }
    })

    const history = Effect.fn("BancoCache.history")(function* (connectionId: string, keys: ReadonlyArray<string>) {
      if (keys.length === 0) return []
      return yield* sql`SELECT natural_key, version, snapshot, valid_from, valid_to FROM cache_history
              WHERE connection_id = ${connectionId} AND resource = ${MovimientosResource.resource} AND natural_key IN ${sql.in(keys)}
              ORDER BY natural_key, version`.pipe(Effect.flatMap(decodeHistory), Effect.orDie)
    })

    /** Runs a page's read and its history's on one snapshot (Database.readSnapshot). */
    const snapshot = <A, E, R>(reads: Effect.Effect<A, E, R>) => readSnapshot(sql, reads)

    return { cuentas, cuentasWithStatus, movimientos, history, snapshot }
  })
}) {}
