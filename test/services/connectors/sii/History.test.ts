import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { RcvQueryOutput } from "../../../../schema/connectors/Sii.ts"
import { SyncOutput } from "../../../../schema/connectors/Sync.ts"
import type { ConnectionId } from "../../../../schema/Ids.ts"
import type { Principal } from "../../../../schema/Principal.ts"
import type { RcvDocumento } from "../../../../schema/upstream/Rcv.ts"
import { RcvResource } from "../../../../services/connectors/sii/RcvResource.ts"
import { chileDayOf } from "../../../../services/upstream/CivilDate.ts"
import { rcvDocuments } from "../../../../services/upstream/RcvGenerator.ts"
import { execute, rut, servicesWithUpstreams, siiConnection, simulators } from "../../../support/Connected.ts"
import { commitBetween } from "../../../support/Interleave.ts"
import { TestDatabase } from "../../../support/TestDatabase.ts"
import { issuePrincipal } from "../../../support/TestLayers.ts"
import { siiOnDay } from "./SiiOnDay.ts"

const PERIODO = "2026-09"
const FIRST = "2026-09-20T15:00:00Z"
const LATER = "2026-10-25T15:00:00Z"
const USER = rut(76500001)

const { day, sii } = siiOnDay(FIRST)
const Live = servicesWithUpstreams(simulators(sii)).pipe(Layer.provideMerge(TestDatabase))

const decodeSync = Schema.decodeUnknown(SyncOutput)
const decodeQuery = Schema.decodeUnknown(RcvQueryOutput)

const sync = (principal: Principal, connectionId: ConnectionId) =>
  execute(principal, "sii.conexion.sincronizar", { periodo: PERIODO, perspectiva: "compras", esperar: 20 }, connectionId).pipe(
    Effect.flatMap((r) => decodeSync(r.data)),
    Effect.map((output) => output.trabajos[0])
  )

const everyDocument = (principal: Principal, connectionId: ConnectionId, incluirHistorial: boolean) =>
  Effect.gen(function* () {
    const all: Array<typeof RcvQueryOutput.Type["documentos"][number]> = []
    let cursor: string | null = null
    do {
      const input: Record<string, unknown> = {
        periodo: PERIODO,
        perspectiva: "compras",
        incluirHistorial,
        limit: 50,
        ...(cursor === null ? {} : { cursor })
      }
      const page = yield* decodeQuery((yield* execute(principal, "sii.rcv.consultar", input, connectionId)).data)
      all.push(...page.documentos)
      cursor = page.cursor
    } while (cursor !== null)
    return all
  })

const key = RcvResource.naturalKey
const sameContent = (a: RcvDocumento, b: RcvDocumento) => JSON.stringify(RcvResource.values(a)) === JSON.stringify(RcvResource.values(b))

layer(Live, { excludeTestServices: true })("RCV history across re-syncs", (it) => {
  it.effect("changed documents become version 2 with the previous values in historial; unchanged stay version 1, once", () =>
    Effect.gen(function* () {
      const before = new Map(rcvDocuments(USER, PERIODO, "compras", chileDayOf(Date.parse(FIRST))).map((d) => [key(d), d]))
      const after = rcvDocuments(USER, PERIODO, "compras", chileDayOf(Date.parse(LATER)))
      const nuevos = after.filter((d) => !before.has(key(d)))
      const cambiados = after.filter((d) => before.has(key(d)) && !sameContent(before.get(key(d))!, d))
      const sinCambios = after.filter((d) => before.has(key(d)) && sameContent(before.get(key(d))!, d))
      assert.isAbove(nuevos.length, 0, "late documents arrive between the two syncs")
      assert.isAbove(cambiados.length, 0, "some estados or amounts change between the two syncs")
      assert.isAbove(sinCambios.length, 0)

      const { principal } = yield* issuePrincipal("paid")
      const connection = yield* siiConnection(principal, USER)
      yield* day.set(FIRST)
      const first = yield* sync(principal, connection.id)
      assert.strictEqual(first?.state, "sincronizada")
      assert.deepStrictEqual(
        [first?.counts["nuevos"], first?.counts["cambiados"], first?.counts["sinCambios"]],
        [before.size, 0, 0]
      )
      const firstSync = (yield* everyDocument(principal, connection.id, false)).length
      assert.strictEqual(firstSync, before.size)

      yield* day.set(LATER)
      const second = yield* sync(principal, connection.id)
      assert.strictEqual(second?.state, "sincronizada")
      assert.deepStrictEqual(
        {
          nuevos: second?.counts["nuevos"],
          cambiados: second?.counts["cambiados"],
          sinCambios: second?.counts["sinCambios"],
          documentos: second?.counts["documentos"]
        },
        { nuevos: nuevos.length, cambiados: cambiados.length, sinCambios: sinCambios.length, documentos: after.length }
      )

      const sql = yield* SqlClient.SqlClient
      const [rows] = yield* sql<{ n: number; keys: number }>`
        SELECT count(*)::int AS n, count(DISTINCT natural_key)::int AS keys FROM rcv_documents WHERE connection_id = ${connection.id}`
      assert.deepStrictEqual(rows, { n: after.length, keys: after.length }, "no document is duplicated")

      const documents = yield* everyDocument(principal, connection.id, true)
      assert.strictEqual(documents.length, after.length)
      const changedKeys = new Set(cambiados.map(key))
      for (const doc of documents) {
        const k = key(doc)
        if (!changedKeys.has(k)) {
          assert.strictEqual(doc.version, 1, k)
          assert.deepStrictEqual(doc.historial, [], k)
          continue
        }
        const old = before.get(k)!
        assert.strictEqual(doc.version, 2, k)
        assert.strictEqual(doc.historial?.length, 1, k)
        const previous = doc.historial?.[0]
        assert.strictEqual(previous?.version, 1)
        assert.isTrue(Date.parse(previous?.vigenteDesde ?? "") <= Date.parse(previous?.vigenteHasta ?? ""))
        assert.deepStrictEqual(
          {
            estado: previous?.valores["estado"],
            montoNeto: previous?.valores["montoNeto"],
            montoTotal: previous?.valores["montoTotal"],
            fechaEmision: previous?.valores["fechaEmision"],
            folio: previous?.valores["folio"]
          },
          { estado: old.estado, montoNeto: old.montoNeto, montoTotal: old.montoTotal, fechaEmision: old.fechaEmision, folio: old.folio },
          `${k}: the previous values, in the document's own shape`
        )
      }
      assert.isTrue(
        documents.some((d) => d.historial?.[0]?.valores["estado"] === "pendiente" && d.estado !== "pendiente"),
        "a pendiente became final"
      )
      const plain = yield* everyDocument(principal, connection.id, false)
      assert.isTrue(plain.every((d) => d.historial === undefined), "historial only when asked")

      const third = yield* sync(principal, connection.id)
      assert.deepStrictEqual(
        [third?.counts["nuevos"], third?.counts["cambiados"], third?.counts["sinCambios"]],
        [0, 0, after.length],
        "a re-sync of the same day changes nothing"
      )
      const [history] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM cache_history WHERE connection_id = ${connection.id}`
      assert.strictEqual(history?.n, cambiados.length)
    }))

  it.effect("with historial, a page and its history are of one moment: a sync committing between their reads is not half seen", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const { principal } = yield* issuePrincipal("paid")
      const connection = yield* siiConnection(principal, rut(76500002))
      yield* day.set(FIRST)
      assert.strictEqual((yield* sync(principal, connection.id))?.state, "sincronizada")
      const consult = execute(principal, "sii.rcv.consultar", {
        periodo: PERIODO,
        perspectiva: "compras",
        incluirHistorial: true,
        limit: 5
      }, connection.id).pipe(Effect.flatMap((r) => decodeQuery(r.data)))

      // Fault injection: the page's history waits for a lock the test holds; meanwhile a write like the sync
      // worker's, made in that lock's transaction, commits version 2 of the page's first document.
      const firstKey = sql`SELECT natural_key FROM rcv_documents WHERE connection_id = ${connection.id} ORDER BY id LIMIT 1`
      const page = yield* commitBetween({
        table: "cache_history",
        waitsAt: "SELECT natural_key, version, valid_from",
        what: "the call waiting for the history",
        write: Effect.zipRight(
          sql`INSERT INTO cache_history (connection_id, resource, natural_key, version, snapshot, valid_from, valid_to, job_id)
            SELECT d.connection_id, ${RcvResource.resource}, d.natural_key, d.version,
                   to_jsonb(d) - 'id' - 'connection_id' - 'content_hash' - 'natural_key' - 'version' - 'synced_at', d.synced_at, now(), 'job_test'
            FROM rcv_documents d WHERE d.connection_id = ${connection.id} AND d.natural_key = (${firstKey})`,
          sql`UPDATE rcv_documents SET razon_social = razon_social || ' (corregida)', version = version + 1, synced_at = now()
            WHERE connection_id = ${connection.id} AND natural_key = (${firstKey})`
        )
      })(consult)

      const [first] = page.documentos
      assert.strictEqual(first?.version, 1, "the page was read before the write committed")
      assert.deepStrictEqual(first?.historial, [], "and its history as of that moment")
      for (const doc of page.documentos) {
        assert.isTrue((doc.historial ?? []).every((h) => h.version < doc.version), `${key(doc)}: its history is of earlier versions`)
      }
      const after = (yield* consult).documentos[0]
      assert.deepStrictEqual([after?.version, after?.historial?.map((h) => h.version)], [2, [1]], "the write happened")
    }))
})
