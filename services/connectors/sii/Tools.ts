import { Effect, Schema } from "effect"
import {
  CachedRcvDocumento,
  RcvQueryInput,
  RcvQueryOutput,
  RcvSummaryInput,
  RcvSummaryOutput,
  SiiSyncInput
} from "../../../schema/connectors/Sii.ts"
import { SyncOutput } from "../../../schema/connectors/Sync.ts"
import { TIPOS_DTE } from "../../../schema/upstream/Rcv.ts"
import { openConsultarCursor, sealConsultarCursor } from "../../sync/ConsultarCursor.ts"
import { rowCheck } from "../../sync/RowCheck.ts"
import { esperar, sincronizar } from "../../sync/Sincronizar.ts"
import { connector } from "../../tools/Source.ts"
import { type CallInfo, connectedAction, encodedOutput, read } from "../../tools/Tool.ts"
import { checkPeriodo } from "./Periodo.ts"
import { RcvCache } from "./RcvCache.ts"

const consultHints = { readOnly: true, destructive: false, idempotent: true, openWorld: false } as const
const RCV_SCOPE = "sii.rcv: documents of the Registro de Compras y Ventas per periodo × perspectiva, as last synced"

/** An empty answer of a period not synced says so; while a sync of it is under way, that it is and how to wait on it. */
const notSynced = (ctx: CallInfo, periodo: string, perspectiva: string, enCurso: boolean) =>
  ctx.annotate({
    hint: enCurso
      ? `Period ${periodo} (${perspectiva}) has not been synced yet: a sync of it is under way (sincronizacionEnCurso), and until it ends an empty result means "not synced", not "no documents". Consult again when it ends, or wait on it with sii.conexion.sincronizar (it joins the sync under way).`
      : `Period ${periodo} (${perspectiva}) has not been synced: an empty result means "not synced", not "no documents". Run sii.conexion.sincronizar, then consult again.`,
    next_actions: [{
      tool: "sii.conexion.sincronizar",
      reason: enCurso ? "wait for the sync under way to end" : "sync the period into the cache",
      input: { periodo, perspectiva }
    }]
  })

export const siiSincronizar = read({
  id: "sii.conexion.sincronizar",
  family: "sii",
  label: "Sincronizar SII",
  description:
    "The only SII tool that logs in: reads the RCV of a period (ventas and/or compras) from SII, normalizes it and stores it with history. Runs as a durable job; waits up to `esperar` seconds and answers with the job's state.",
  plan: "paid",
  hints: { readOnly: false, destructive: false, idempotent: true, openWorld: true },
  cost: { kind: "read" },
  level: 0,
  stages: [],
  input: SiiSyncInput,
  output: SyncOutput,
  handler: (input, ctx) =>
    Effect.gen(function* () {
      yield* checkPeriodo(input.periodo)
      const perspectivas = input.perspectiva === undefined ? (["ventas", "compras"] as const) : [input.perspectiva]
      return yield* sincronizar("sii", perspectivas.map((perspectiva) => ({ periodo: input.periodo, perspectiva })), ctx)
    }),
  afterCommit: (input, committed, ctx) => esperar("sii", input.esperar, committed, ctx)
})

export const rcvConsultar = connectedAction({
  id: "sii.rcv.consultar",
  family: "sii",
  label: "Consultar RCV",
  description:
    "Documents of the RCV from the cache (never SII): filter by tipoDte, rut, estado; page with limit + cursor. An empty result with sincronizacion null means the period is not synced yet.",
  plan: "paid",
  hints: consultHints,
  cost: { kind: "read" },
  level: 0,
  stages: [],
  scope: RCV_SCOPE,
  input: RcvQueryInput,
  output: RcvQueryOutput,
  handler: (input, ctx) =>
    Effect.gen(function* () {
      const cache = yield* RcvCache
      const connectionId = ctx.connectionId
      const consulta = {
        toolId: "sii.rcv.consultar",
        workspace: ctx.principal.workspaceId,
        connectionId,
        filter: { periodo: input.periodo, perspectiva: input.perspectiva, ...pick(input) }
      }
      const at = yield* openConsultarCursor(input.cursor, consulta)
      const read = cache.page({
        connectionId,
        periodo: input.periodo,
        perspectiva: input.perspectiva,
        after: at === undefined ? 0 : yield* Effect.orDie(decodeRowId(at.id)),
        limit: input.limit,
        ...pick(input)
      })
      // With its history, the page and the earlier versions are read on one snapshot: a sync committing
      // between them would show a version both as current and as ended.
      const [page, history] = yield* (input.incluirHistorial
        ? cache.snapshot(Effect.flatMap(read, (page) => Effect.map(cache.history(connectionId, page.keys), (h) => [page, h] as const)))
        : Effect.map(read, (page) => [page, []] as const))
      const status = { sincronizacion: page.sincronizacion, sincronizacionEnCurso: page.sincronizacionEnCurso }
      if (input.incluirHistorial) {
        page.documentos.forEach((doc, i) => {
          Object.assign(doc, {
            historial: history.filter((h) => h.naturalKey === page.keys[i]).map((h) => ({
              version: h.version,
              vigenteDesde: h.validFrom.toISOString(),
              vigenteHasta: h.validTo.toISOString(),
              valores: h.snapshot
            }))
          })
        })
      }
      if (status.sincronizacion === null && page.documentos.length === 0) {
        yield* notSynced(ctx, input.periodo, input.perspectiva, status.sincronizacionEnCurso !== null)
      }
      const cursor = yield* sealConsultarCursor(consulta, page.next === null ? null : { at: null, id: String(page.next) })
      // The rows come as the answer sends them: checked once, not decoded and encoded again.
      if (checkDocumentos(page.documentos)) return encodedOutput({ documentos: page.documentos, cursor, ...status })
      return { documentos: yield* Effect.orDie(decodeDocumentos(page.documentos)), cursor, ...status }
    })
})

const decodeRowId = Schema.decode(Schema.compose(Schema.NumberFromString, Schema.Int))
const checkDocumentos = rowCheck(CachedRcvDocumento)
const decodeDocumentos = Schema.decodeUnknown(Schema.Array(CachedRcvDocumento))

const pick = (input: typeof RcvQueryInput.Type) => ({
  ...(input.tipoDte === undefined ? {} : { tipoDte: input.tipoDte }),
  ...(input.rut === undefined ? {} : { rut: input.rut }),
  ...(input.estado === undefined ? {} : { estado: input.estado })
})

export const rcvResumenConsultar = connectedAction({
  id: "sii.rcv.resumen.consultar",
  aggregate: true,
  family: "sii",
  label: "Resumen RCV",
  description:
    "Totals and averages per tipoDte of a synced period, from the cache (never SII), with a ref to cite the figures. Credit notes subtract in the overall total.",
  plan: "paid",
  hints: consultHints,
  cost: { kind: "read" },
  level: 0,
  stages: [],
  scope: RCV_SCOPE,
  input: RcvSummaryInput,
  output: RcvSummaryOutput,
  handler: (input, ctx) =>
    Effect.gen(function* () {
      const cache = yield* RcvCache
      const connectionId = ctx.connectionId
      const { tipos, ...status } = yield* cache.summary(connectionId, input.periodo, input.perspectiva)
      if (status.sincronizacion === null) yield* notSynced(ctx, input.periodo, input.perspectiva, status.sincronizacionEnCurso !== null)
      const sign = (tipo: number) => (CREDIT_NOTES.has(tipo) ? -1 : 1)
      const sum = (field: "montoExento" | "montoNeto" | "montoIva" | "montoTotal") =>
        tipos.reduce((n, t) => n + sign(t.tipoDte) * t[field], 0)
      const documentos = tipos.reduce((n, t) => n + t.documentos, 0)
      const total = {
        documentos,
        montoExento: sum("montoExento"),
        montoNeto: sum("montoNeto"),
        montoIva: sum("montoIva"),
        montoTotal: sum("montoTotal")
      }
      const avg = (value: number, n: number) => (n === 0 ? 0 : Math.round(value / n))
      return {
        ref: `sii.rcv.resumen:${connectionId}:${input.periodo}:${input.perspectiva}@${
          status.sincronizacion?.sincronizadoEn ?? "sin_sincronizar"
        }`,
        porTipo: tipos.map((t) => ({
          tipoDte: t.tipoDte,
          nombre: TIPOS_DTE[t.tipoDte] ?? `Tipo ${t.tipoDte}`,
          documentos: t.documentos,
          total: { montoExento: t.montoExento, montoNeto: t.montoNeto, montoIva: t.montoIva, montoTotal: t.montoTotal },
          promedio: {
            montoExento: avg(t.montoExento, t.documentos),
            montoNeto: avg(t.montoNeto, t.documentos),
            montoIva: avg(t.montoIva, t.documentos),
            montoTotal: avg(t.montoTotal, t.documentos)
          }
        })),
        total,
        promedio: {
          montoExento: avg(total.montoExento, documentos),
          montoNeto: avg(total.montoNeto, documentos),
          montoIva: avg(total.montoIva, documentos),
          montoTotal: avg(total.montoTotal, documentos)
        },
        ...status
      }
    })
})

const CREDIT_NOTES = new Set([61, 112])

export const SiiConnector = connector({
  id: "sii",
  label: "SII",
  plan: "paid",
  requiresConnection: true,
  tools: [siiSincronizar, rcvConsultar, rcvResumenConsultar]
})
