import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { RcvQueryOutput, RcvSummaryOutput } from "../../../../schema/connectors/Sii.ts"
import type { ConnectionId } from "../../../../schema/Ids.ts"
import type { Principal } from "../../../../schema/Principal.ts"
import { sealConsultarCursor } from "../../../../services/sync/ConsultarCursor.ts"
import { scopeKeyOf } from "../../../../services/sync/SyncJobs.ts"
import { rcvResumen } from "../../../../services/upstream/RcvGenerator.ts"
import { execute, rut, siiConnection, simulatedServices } from "../../../support/Connected.ts"
import { refused } from "../../../support/Refused.ts"
import { SUITE_DAY } from "../../../support/SuiteClock.ts"
import { TestDatabase } from "../../../support/TestDatabase.ts"
import { issuePrincipal } from "../../../support/TestLayers.ts"

const Live = simulatedServices().pipe(Layer.provideMerge(TestDatabase))

const decodeQuery = Schema.decodeUnknown(RcvQueryOutput)
const decodeSummary = Schema.decodeUnknown(RcvSummaryOutput)

/** A paid workspace with an SII connection whose compras of 2026-10 are synced. */
const synced = (body: number) =>
  Effect.gen(function* () {
    const { principal } = yield* issuePrincipal("paid")
    const connection = yield* siiConnection(principal, rut(body))
    const response = yield* execute(
      principal,
      "sii.conexion.sincronizar",
      { periodo: "2026-10", perspectiva: "compras", esperar: 20 },
      connection.id
    )
    assert.strictEqual((response.data as { estado: string }).estado, "sincronizada")
    return { principal, connectionId: connection.id }
  })

const query = (principal: Principal, connectionId: ConnectionId, input: Record<string, unknown>) =>
  Effect.flatMap(
    execute(principal, "sii.rcv.consultar", input, connectionId),
    (r) => Effect.map(decodeQuery(r.data), (data) => ({ ...r, data }))
  )

let nextFolio = 9_000_000

/** A document inserted behind the tools' back, as another sync committing into the same scope would. */
const insertDocument = (connectionId: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const folio = nextFolio++
    const emisor = rut(96500000)
    const naturalKey = `compras|33|${folio}|${emisor}`
    yield* sql`INSERT INTO rcv_documents (connection_id, periodo, perspectiva, natural_key, tipo_dte, folio, rut_emisor, rut_receptor,
                 razon_social, fecha_emision, monto_exento, monto_neto, monto_iva, monto_total, estado, content_hash, synced_at)
               VALUES (${connectionId}, '2026-10', 'compras', ${naturalKey}, 33, ${folio}, ${emisor}, ${rut(76700001)},
                 'Insertada Concurrente SpA', '2026-10-15', 0, 1000, 190, 1190, 'registro', 'x', now())`
    return `33|${folio}|${emisor}`
  })

layer(Live, { excludeTestServices: true })("sii .consultar tools", (it) => {
  it.effect("a cursor walk with limit 7 sees every row exactly once while other rows are inserted into the scope", () =>
    Effect.gen(function* () {
      const { connectionId, principal } = yield* synced(76700001)
      const sql = yield* SqlClient.SqlClient
      const existing = yield* sql<{ key: string }>`
        SELECT tipo_dte || '|' || folio || '|' || rut_emisor AS key FROM rcv_documents WHERE connection_id = ${connectionId}`
      const seen: Array<string> = []
      const inserted: Array<string> = []
      let cursor: string | null = null
      let pages = 0
      do {
        const page: typeof RcvQueryOutput.Type = (yield* query(principal, connectionId, {
          periodo: "2026-10",
          perspectiva: "compras",
          limit: 7,
          ...(cursor === null ? {} : { cursor })
        })).data
        assert.isAtMost(page.documentos.length, 7)
        seen.push(...page.documentos.map((d) => `${d.tipoDte}|${d.folio}|${d.rutEmisor}`))
        cursor = page.cursor
        pages++
        if (cursor !== null && pages % 3 === 1) inserted.push(yield* insertDocument(connectionId), yield* insertDocument(connectionId))
      } while (cursor !== null)
      assert.isAbove(inserted.length, 0)
      assert.strictEqual(new Set(seen).size, seen.length, "no row twice")
      assert.sameMembers(seen, [...existing.map((e) => e.key), ...inserted], "every row, including those inserted while paging")
      assert.strictEqual(pages, Math.ceil(seen.length / 7), "full pages of 7, and the last page says there is no more")
    }))

  it.effect("a page is sent as its schema encodes it (fields, order, absent refs left out); a cached row that breaks the schema is not sent", () =>
    Effect.gen(function* () {
      const { connectionId, principal } = yield* synced(76700005)
      const sql = yield* SqlClient.SqlClient
      const emisor = rut(96500001)
      yield* sql`INSERT INTO rcv_documents (connection_id, periodo, perspectiva, natural_key, tipo_dte, folio, rut_emisor, rut_receptor,
                   razon_social, fecha_emision, monto_exento, monto_neto, monto_iva, monto_total, estado, tipo_doc_ref, folio_ref, content_hash, synced_at)
                 VALUES (${connectionId}, '2026-10', 'compras', ${`compras|61|8000001|${emisor}`}, 61, 8000001, ${emisor}, ${rut(76700005)},
                   'Nota Referida SpA', '2026-10-20', 0, 1000, 190, 1190, 'registro', 33, 4242, 'x', now())`
      const raw = (input: Record<string, unknown>) =>
        Effect.map(execute(principal, "sii.rcv.consultar", input, connectionId), (r) => r.data)
      const reencoded = (data: unknown) => Effect.flatMap(decodeQuery(data), Schema.encode(RcvQueryOutput))
      const all = yield* raw({ periodo: "2026-10", perspectiva: "compras", limit: 500, incluirHistorial: true })
      assert.strictEqual(JSON.stringify(all), JSON.stringify(yield* reencoded(all)))
      const documentos = (all as { documentos: ReadonlyArray<Record<string, unknown>> }).documentos
      const referida = documentos.find((d) => d.folio === 8000001)
      assert.deepStrictEqual([referida?.tipoDocRef, referida?.folioRef, referida?.fechaEmision], [33, 4242, "20/10/2026"])
      assert.isTrue(documentos.some((d) => !("tipoDocRef" in d) && !("folioRef" in d)), "a document without refs has no ref fields")

      yield* sql`UPDATE rcv_documents SET rut_emisor = '96500001-0' WHERE connection_id = ${connectionId} AND folio = 8000001`
      const broken = yield* Effect.flip(raw({ periodo: "2026-10", perspectiva: "compras", limit: 500 }))
      assert.strictEqual(broken._tag, "ToolFailed")
    }))

  it.effect("a page carries its scope's status as the summary reads it: the sync's time, and a sync under way, beside documents and beside none", () =>
    Effect.gen(function* () {
      const { connectionId, principal } = yield* synced(76700006)
      const sql = yield* SqlClient.SqlClient
      const scope = { periodo: "2026-10", perspectiva: "compras" }
      const summaryStatus = Effect.map(
        Effect.flatMap(execute(principal, "sii.rcv.resumen.consultar", scope, connectionId), (r) => decodeSummary(r.data)),
        (s) => ({ sincronizacion: s.sincronizacion, sincronizacionEnCurso: s.sincronizacionEnCurso })
      )
      const statusOf = (page: typeof RcvQueryOutput.Type) => ({
        sincronizacion: page.sincronizacion,
        sincronizacionEnCurso: page.sincronizacionEnCurso
      })
      const [coverage] = yield* sql<{ syncedAt: Date }>`
        SELECT synced_at FROM sync_coverage WHERE connection_id = ${connectionId} AND scope_key = ${scopeKeyOf(scope)}`
      const first = (yield* query(principal, connectionId, { ...scope, limit: 3 })).data
      assert.strictEqual(first.documentos.length, 3)
      assert.deepStrictEqual(first.sincronizacion, { sincronizadoEn: coverage!.syncedAt.toISOString(), completo: true })
      assert.deepStrictEqual(statusOf(first), yield* summaryStatus)

      // a sync of the scope under way (due tomorrow, so no worker takes it while this runs)
      yield* sql`INSERT INTO sync_jobs (id, connection_id, workspace_id, connector, scope_key, scope, state, run_after, progress)
                 VALUES ('job_status_beside_page', ${connectionId}, ${principal.workspaceId}, 'sii', ${scopeKeyOf(scope)},
                         ${JSON.stringify(scope)}::jsonb, 'sincronizando', now() + interval '1 day', '{"done": 2, "total": 5}')`
      const during = (yield* query(principal, connectionId, { ...scope, limit: 3 })).data
      assert.strictEqual(during.documentos.length, 3)
      assert.deepStrictEqual(during.sincronizacionEnCurso, {
        trabajo: "job_status_beside_page",
        estado: "sincronizando",
        progreso: { done: 2, total: 5 }
      })
      assert.deepStrictEqual(statusOf(during), yield* summaryStatus)
      const [last] = yield* sql<{ id: string }>`SELECT max(id)::text AS id FROM rcv_documents WHERE connection_id = ${connectionId}`
      const pastLast = yield* sealConsultarCursor(
        { toolId: "sii.rcv.consultar", workspace: principal.workspaceId, connectionId, filter: scope },
        { at: null, id: last!.id }
      )
      const beyond = (yield* query(principal, connectionId, { ...scope, cursor: pastLast! })).data
      assert.deepStrictEqual(beyond, { documentos: [], cursor: null, ...statusOf(during) })
    }))

  it.effect("a period not synced yet whose first sync is under way says so, and how to wait on it, where it would say to sync", () =>
    Effect.gen(function* () {
      const { connectionId, principal } = yield* synced(76700007)
      const sql = yield* SqlClient.SqlClient
      const scope = { periodo: "2026-09", perspectiva: "ventas" }
      yield* sql`INSERT INTO sync_jobs (id, connection_id, workspace_id, connector, scope_key, scope, state, run_after, progress)
                 VALUES ('job_first_sync_under_way', ${connectionId}, ${principal.workspaceId}, 'sii', ${scopeKeyOf(scope)},
                         ${JSON.stringify(scope)}::jsonb, 'sincronizando', now() + interval '1 day', '{"done": 1, "total": 4}')`
      for (const tool of ["sii.rcv.consultar", "sii.rcv.resumen.consultar"]) {
        const response = yield* execute(principal, tool, scope, connectionId)
        const data = response.data as { readonly sincronizacion: unknown; readonly sincronizacionEnCurso: unknown }
        assert.strictEqual(data.sincronizacion, null, tool)
        assert.deepStrictEqual(data.sincronizacionEnCurso, {
          trabajo: "job_first_sync_under_way",
          estado: "sincronizando",
          progreso: { done: 1, total: 4 }
        }, tool)
        assert.include(response.hint ?? "", "under way", tool)
        assert.include(response.hint ?? "", "not synced", tool)
        assert.notInclude(response.hint ?? "", "Run sii.conexion.sincronizar", tool)
        assert.deepStrictEqual(response.next_actions, [
          { tool: "sii.conexion.sincronizar", reason: "wait for the sync under way to end", input: scope }
        ], tool)
      }
    }))

  it.effect("a cursor that is not one of the tool's is CursorRejected", () =>
    Effect.gen(function* () {
      const { connectionId, principal } = yield* synced(76700002)
      const error = yield* Effect.flip(
        query(principal, connectionId, { periodo: "2026-10", perspectiva: "compras", cursor: "not-a-cursor" })
      )
      assert.deepStrictEqual([error._tag, error._tag === "CursorRejected" ? error.reason : undefined], ["CursorRejected", "tampered"])
    }))

  it.effect("a cursor pages only the query it came from: another perspectiva, periodo or connection, or a forged one, is CursorRejected", () =>
    Effect.gen(function* () {
      const { connectionId, principal } = yield* synced(76700008)
      const other = yield* siiConnection(principal, rut(76700009))
      const compras = { periodo: "2026-10", perspectiva: "compras" }
      const synced2 = yield* execute(principal, "sii.conexion.sincronizar", { ...compras, esperar: 20 }, other.id)
      assert.strictEqual((synced2.data as { estado: string }).estado, "sincronizada")
      const first = (yield* query(principal, connectionId, { ...compras, limit: 5 })).data
      assert.isNotNull(first.cursor)
      const cursor = first.cursor!
      const rejection = (connection: ConnectionId, input: Record<string, unknown>) =>
        Effect.map(refused(execute(principal, "sii.rcv.consultar", input, connection), JSON.stringify(input)), (error) => ({
          tag: error._tag,
          reason: error._tag === "CursorRejected" ? error.reason : undefined,
          hint: error._tag === "CursorRejected" ? error.hint : undefined
        }))
      const startAgain = "Call sii.rcv.consultar again without cursor, then follow the cursors it answers"
      const base64 = (value: unknown) => Buffer.from(JSON.stringify(value), "utf8").toString("base64url")
      const cases = [
        [connectionId, { periodo: "2026-10", perspectiva: "ventas", cursor }, "other_search"],
        [connectionId, { periodo: "2026-09", perspectiva: "compras", cursor }, "other_search"],
        [connectionId, { ...compras, estado: "reclamado", cursor }, "other_search"],
        [other.id, { ...compras, cursor }, "other_search"],
        [connectionId, { ...compras, cursor: base64({ id: -1 }) }, "tampered"],
        [connectionId, { ...compras, cursor: base64({ id: 145 }) }, "tampered"],
        [connectionId, { ...compras, cursor: `${cursor.slice(0, 4)}${cursor[4] === "A" ? "B" : "A"}${cursor.slice(5)}` }, "tampered"]
      ] as const
      for (const [connection, input, reason] of cases) {
        assert.deepStrictEqual(
          yield* rejection(connection, input),
          { tag: "CursorRejected", reason, hint: startAgain },
          JSON.stringify(input)
        )
      }

      const all = (yield* query(principal, connectionId, { ...compras, limit: 500 })).data.documentos.map((d) =>
        `${d.tipoDte}|${d.folio}|${d.rutEmisor}`
      )
      const walked = [...first.documentos.map((d) => `${d.tipoDte}|${d.folio}|${d.rutEmisor}`)]
      let next: string | null = cursor
      while (next !== null) {
        const page: typeof RcvQueryOutput.Type = (yield* query(principal, connectionId, { ...compras, limit: 5, cursor: next })).data
        walked.push(...page.documentos.map((d) => `${d.tipoDte}|${d.folio}|${d.rutEmisor}`))
        next = page.cursor
      }
      assert.isAbove(all.length, 5)
      assert.deepStrictEqual(walked, all, "the same query pages every document once, in order")
    }))

  it.effect("a cursor claims no count its answers never gave: its readable claims carry the position, not a total of 0", () =>
    Effect.gen(function* () {
      const { connectionId, principal } = yield* synced(76700010)
      const compras = { periodo: "2026-10", perspectiva: "compras" }
      const all = (yield* query(principal, connectionId, { ...compras, limit: 500 })).data.documentos
      const first = (yield* query(principal, connectionId, { ...compras, limit: 2 })).data
      assert.isAbove(all.length, 2)
      const [body = ""] = (first.cursor ?? "").split(".")
      const claims = Schema.decodeUnknownSync(Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.Unknown })))(
        Buffer.from(body, "base64url").toString("utf8")
      )
      assert.deepStrictEqual(Object.keys(claims).sort(), ["dataset", "issuedAt", "position", "search", "workspace"])
      const next = (yield* query(principal, connectionId, { ...compras, limit: 2, cursor: first.cursor })).data
      assert.deepStrictEqual(next.documentos, all.slice(2, 4))
    }))

  it.effect("an empty result of a period never synced says so and points to sincronizar", () =>
    Effect.gen(function* () {
      const { connectionId, principal } = yield* synced(76700003)
      const response = yield* query(principal, connectionId, { periodo: "2026-03", perspectiva: "ventas" })
      assert.deepStrictEqual(response.data, { documentos: [], cursor: null, sincronizacion: null, sincronizacionEnCurso: null })
      assert.include(response.hint ?? "", "not synced")
      assert.include(response.hint ?? "", "sii.conexion.sincronizar")
      assert.deepStrictEqual(response.next_actions?.map((a) => [a.tool, a.input]), [
        ["sii.conexion.sincronizar", { periodo: "2026-03", perspectiva: "ventas" }]
      ])
      const summary = yield* execute(principal, "sii.rcv.resumen.consultar", { periodo: "2026-03", perspectiva: "ventas" }, connectionId)
      assert.strictEqual((yield* decodeSummary(summary.data)).sincronizacion, null)
      assert.deepStrictEqual(summary.next_actions?.map((a) => a.tool), ["sii.conexion.sincronizar"])

      const other = yield* query(principal, connectionId, { periodo: "2026-10", perspectiva: "ventas" })
      assert.strictEqual(other.data.sincronizacion, null, "the other perspectiva of a synced period is its own scope")
      assert.deepStrictEqual(other.next_actions?.map((a) => a.tool), ["sii.conexion.sincronizar"])
    }))

  it.effect("a synced period without documents is complete and empty, with no hint to sync", () =>
    Effect.gen(function* () {
      // This RUT's RCV starts after 2017-09: SII answers that period with no documents.
      const { principal } = yield* issuePrincipal("paid")
      const connection = yield* siiConnection(principal, rut(76600001))
      yield* execute(principal, "sii.conexion.sincronizar", { periodo: "2017-09", perspectiva: "compras", esperar: 20 }, connection.id)
      const response = yield* query(principal, connection.id, { periodo: "2017-09", perspectiva: "compras" })
      assert.deepStrictEqual(response.data.documentos, [])
      assert.strictEqual(response.data.sincronizacion?.completo, true)
      assert.isUndefined(response.hint)
      assert.isUndefined(response.next_actions)
    }))

  const summaryMatchesSii = (body: number) =>
    Effect.gen(function* () {
      const user = rut(body)
      const { principal } = yield* issuePrincipal("paid")
      const connection = yield* siiConnection(principal, user)
      yield* execute(principal, "sii.conexion.sincronizar", { periodo: "2026-10", perspectiva: "ventas", esperar: 20 }, connection.id)
      const summary = yield* decodeSummary(
        (yield* execute(principal, "sii.rcv.resumen.consultar", { periodo: "2026-10", perspectiva: "ventas" }, connection.id)).data
      )
      const sii = rcvResumen(user, "2026-10", "ventas", SUITE_DAY)
      assert.deepStrictEqual(
        summary.porTipo.map((t) => [t.tipoDte, t.documentos, t.total.montoTotal]),
        sii.tipos.map((t) => [t.tipoDte, t.documentos, t.montoTotal])
      )
      const sign = (tipo: number) => (tipo === 61 ? -1 : 1)
      assert.strictEqual(
        summary.total.montoTotal,
        sii.tipos.reduce((n, t) => n + sign(t.tipoDte) * t.montoTotal, 0),
        "credit notes subtract"
      )
    })

  it.effect("sii.rcv.resumen.consultar has SII's totals per tipoDte, credit notes subtracting", () => summaryMatchesSii(76700001))

  // SII lists boletas (39) only as a total in its resumen: the sync keeps those totals for the summary.
  it.effect("sii.rcv.resumen.consultar includes the boletas SII reports only as a total", () => summaryMatchesSii(76700004))
})
