import { Effect } from "effect"
import {
  BancoSyncInput,
  CuentasQueryInput,
  CuentasQueryOutput,
  MovimientosQueryInput,
  MovimientosQueryOutput
} from "../../../schema/connectors/Banco.ts"
import { SyncOutput } from "../../../schema/connectors/Sync.ts"
import { InvalidInput } from "../../../schema/Errors.ts"
import { openConsultarCursor, sealConsultarCursor } from "../../sync/ConsultarCursor.ts"
import { esperar, sincronizar } from "../../sync/Sincronizar.ts"
import { connector } from "../../tools/Source.ts"
import { type CallInfo, connectedAction, read } from "../../tools/Tool.ts"
import { BancoCache, type MovimientoRow } from "./BancoCache.ts"
import { movimientoAt, positionOf } from "./MovimientoCursor.ts"
import { checkPeriodo, currentPeriodo, periodosBetween, spans, syncablePeriodos } from "./Periodo.ts"

const consultHints = { readOnly: true, destructive: false, idempotent: true, openWorld: false } as const
const CUENTAS_SCOPE = "banco.cuentas: the connection's accounts and balances, as of the latest sync of any month"
const MOVIMIENTOS_SCOPE = "banco.movimientos: cartola lines of every account, per month synced (by post_date), with their history"
const SYNC_TOOL = "banco.conexion.sincronizar"

export const bancoSincronizar = read({
  id: SYNC_TOOL,
  family: "banco",
  label: "Sincronizar banco",
  description:
    "The only bank tool that logs in (≈ 90 s; BCI allows one session per user): reads the accounts with their balances and the movements posted in a month, normalizes them and stores them with history. Runs as a durable job; waits up to `esperar` seconds and answers with the job's state.",
  plan: "paid",
  hints: { readOnly: false, destructive: false, idempotent: true, openWorld: true },
  cost: { kind: "read" },
  level: 0,
  stages: [],
  input: BancoSyncInput,
  output: SyncOutput,
  handler: (input, ctx) =>
    Effect.gen(function* () {
      yield* checkPeriodo(input.periodo)
      return yield* sincronizar("banco", [{ periodo: input.periodo }], ctx)
    }),
  afterCommit: (input, committed, ctx) => esperar("banco", input.esperar, committed, ctx)
})

export const cuentasConsultar = connectedAction({
  id: "banco.cuentas.consultar",
  family: "banco",
  label: "Consultar cuentas",
  description:
    "The connection's bank accounts with their balances, from the cache (never the bank). Balances are as of sincronizacion.sincronizadoEn; an empty list with sincronizacion null means the connection was never synced.",
  plan: "paid",
  hints: consultHints,
  cost: { kind: "read" },
  level: 0,
  stages: [],
  scope: CUENTAS_SCOPE,
  input: CuentasQueryInput,
  output: CuentasQueryOutput,
  handler: (_input, ctx) =>
    Effect.gen(function* () {
      const cache = yield* BancoCache
      const connectionId = ctx.connectionId
      const { cuentas, sincronizacion, sincronizacionEnCurso: enCurso } = yield* cache.cuentasWithStatus(connectionId)
      if (sincronizacion === null) {
        const periodo = yield* currentPeriodo
        yield* ctx.annotate({
          hint: enCurso === null
            ? `This connection has never been synced: an empty list means "not synced", not "no accounts". Run ${SYNC_TOOL} (any month brings the accounts and their balances), then consult again.`
            : "The first sync of this connection is under way (sincronizacionEnCurso): consult again when it ends.",
          ...(enCurso === null
            ? {
              next_actions: [{
                tool: SYNC_TOOL,
                reason: "sync the current month: it brings the accounts and their balances",
                input: { periodo }
              }]
            }
            : {})
        })
      }
      return {
        cuentas: cuentas.map(({ accountId, balanceAvailable, balanceCurrent, balanceLimit, ...cuenta }) => ({
          ...cuenta,
          id: accountId,
          balance: { available: balanceAvailable, current: balanceCurrent, limit: balanceLimit ?? 0 }
        })),
        sincronizacion,
        sincronizacionEnCurso: enCurso
      }
    })
})

const WAIT_ON_IT = `consult again when it ends, or wait on it with ${SYNC_TOOL} (it joins the sync under way).`

/** Months not synced say so; of those, the ones whose sync is under way say to wait on it rather than to sync them. */
const notSynced = (ctx: CallInfo, missing: ReadonlyArray<string>, underWay: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const window = yield* syncablePeriodos
    const syncable = missing.filter((p) => p >= window.desde && p <= window.hasta)
    const toSync = syncable.filter((p) => !underWay.includes(p))
    const waiting = syncable.filter((p) => underWay.includes(p))
    const outside = missing.filter((p) => p < window.desde || p > window.hasta)
    yield* ctx.annotate({
      hint: [
        `Not synced: ${spans(missing)}. Movements absent from those months mean "not synced", not "no movements".`,
        toSync.length > 0 ? `Run ${SYNC_TOOL} for ${spans(toSync)}, then consult again.` : "",
        waiting.length > 0 ? `A sync of ${spans(waiting)} is under way (sincronizacionEnCurso): ${WAIT_ON_IT}` : "",
        outside.length > 0 ? `${spans(outside)} cannot be synced: the bank shows ${window.desde} up to ${window.hasta}.` : ""
      ].filter((s) => s !== "").join(" "),
      next_actions: syncable.map((periodo) => ({
        tool: SYNC_TOOL,
        reason: underWay.includes(periodo) ? `wait for the sync of ${periodo} under way to end` : `sync ${periodo} into the cache`,
        input: { periodo }
      }))
    })
  })

export const movimientosConsultar = connectedAction({
  id: "banco.movimientos.consultar",
  family: "banco",
  label: "Consultar movimientos",
  description:
    "Cartola lines posted between desde and hasta, from the cache (never the bank), oldest first; filter by cuenta; page with limit + cursor. sincronizacion covers every month of the range: null means some month was never synced (the hint names it).",
  plan: "paid",
  hints: consultHints,
  cost: { kind: "read" },
  level: 0,
  stages: [],
  scope: MOVIMIENTOS_SCOPE,
  input: MovimientosQueryInput,
  output: MovimientosQueryOutput,
  handler: (input, ctx) =>
    Effect.gen(function* () {
      if (input.desde > input.hasta) {
        const message = `desde (${input.desde}) is after hasta (${input.hasta})`
        return yield* new InvalidInput({ message: `input.desde: ${message}`, issues: [{ path: "input.desde", message }] })
      }
      const cache = yield* BancoCache
      const connectionId = ctx.connectionId
      const consulta = {
        toolId: "banco.movimientos.consultar",
        workspace: ctx.principal.workspaceId,
        connectionId,
        filter: { desde: input.desde, hasta: input.hasta, ...(input.cuenta === undefined ? {} : { cuenta: input.cuenta }) }
      }
      const after = yield* movimientoAt(yield* openConsultarCursor(input.cursor, consulta))
      const periodos = periodosBetween(input.desde, input.hasta)
      const read = cache.movimientos({
        connectionId,
        desde: input.desde,
        hasta: input.hasta,
        ...(input.cuenta === undefined ? {} : { cuenta: input.cuenta }),
        after,
        limit: input.limit
      }, periodos)
      // With its history, the page and the earlier versions are read on one snapshot: a sync committing
      // between them would show a version both as current and as ended.
      const withHistory = Effect.flatMap(read, (found) =>
        Effect.map(
          cache.history(
            connectionId,
            found.rows.slice(0, input.limit).map((r) => r.movementId)
          ),
          (h) => [found, h] as const
        ))
      const [{ rows, missing, underWay, sincronizacion, sincronizacionEnCurso: enCurso }, history] = yield* (input.incluirHistorial
        ? cache.snapshot(withHistory)
        : Effect.map(read, (found) => [found, []] as const))
      const page = rows.slice(0, input.limit)
      if (missing.length > 0) yield* notSynced(ctx, missing, underWay)
      if (input.cuenta !== undefined && page.length === 0 && missing.length < periodos.length) {
        const cuentas = yield* cache.cuentas(connectionId)
        if (!cuentas.some((c) => c.accountId === input.cuenta)) {
          yield* ctx.annotate({ warnings: [`No account ${input.cuenta} in this connection's cache: banco.cuentas.consultar lists them.`] })
        }
      }

      const last = page[page.length - 1]
      const more = rows.length > input.limit && last !== undefined
      const cursor = yield* sealConsultarCursor(consulta, more ? positionOf({ postDate: last.postDate, id: last.rowId }) : null)
      return {
        movimientos: page.map((row) =>
          toMovimiento(row, input.incluirHistorial ? history.filter((h) => h.naturalKey === row.movementId) : undefined)
        ),
        cursor,
        sincronizacion,
        sincronizacionEnCurso: enCurso
      }
    })
})

interface HistoryEntry {
  readonly version: number
  readonly snapshot: Readonly<Record<string, unknown>>
  readonly validFrom: Date
  readonly validTo: Date
}

const toMovimiento = ({ rowId: _rowId, movementId, comment, ...row }: MovimientoRow, history: ReadonlyArray<HistoryEntry> | undefined) => ({
  ...row,
  id: movementId,
  ...(comment === null ? {} : { comment }),
  ...(history === undefined
    ? {}
    : {
      historial: history.map((h) => ({
        version: h.version,
        vigenteDesde: h.validFrom.toISOString(),
        vigenteHasta: h.validTo.toISOString(),
        valores: h.snapshot
      }))
    })
})

export const BancoConnector = connector({
  id: "banco",
  label: "Banco",
  plan: "paid",
  requiresConnection: true,
  tools: [bancoSincronizar, cuentasConsultar, movimientosConsultar]
})
