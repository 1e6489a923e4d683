import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { CuentasQueryOutput, MovimientosQueryOutput } from "../../../../schema/connectors/Banco.ts"
import { SyncOutput } from "../../../../schema/connectors/Sync.ts"
import { rutDv } from "../../../../schema/upstream/Rut.ts"
import { MovimientosResource } from "../../../../services/connectors/banco/BancoResources.ts"
import { currentPeriodo, MESES_HISTORIA, monthBounds } from "../../../../services/connectors/banco/Periodo.ts"
import { Executor } from "../../../../services/pipeline/Executor.ts"
import { scopeKeyOf } from "../../../../services/sync/SyncJobs.ts"
import { BancoSimulator } from "../../../../services/upstream/BancoSimulator.ts"
import { formatPeriodo, parsePeriodo } from "../../../../services/upstream/CivilDate.ts"
import { commitBetween } from "../../../support/Interleave.ts"
import { refused } from "../../../support/Refused.ts"
import { callContext, issuePrincipal } from "../../../support/TestLayers.ts"
import { bancoConnection, BancoTest } from "./BancoLayers.ts"

type Movimientos = typeof MovimientosQueryOutput.Type

const monthsAgo = (n: number) => Effect.map(currentPeriodo, (current) => formatPeriodo(parsePeriodo(current) - n))

/** A paid workspace with one banco connection, and a caller for its tools. */
const connected = (rut: string, clave?: string) =>
  Effect.gen(function* () {
    const executor = yield* Executor
    const { principal } = yield* issuePrincipal("paid")
    const connection = yield* bancoConnection(principal, rut, clave)
    const call = (tool: string, input: unknown) => executor.call(tool, input, callContext(principal, { connectionId: connection.id }))
    return { principal, connectionId: connection.id, call }
  })

const sync = (call: (tool: string, input: unknown) => ReturnType<Executor["call"]>, periodo: string) =>
  Effect.flatMap(call("banco.conexion.sincronizar", { periodo, esperar: 30 }), (r) => Schema.decodeUnknown(SyncOutput)(r.data))

const allMovimientos = (call: (tool: string, input: unknown) => ReturnType<Executor["call"]>, input: Record<string, unknown>) =>
  Effect.gen(function* () {
    const pages: Array<Movimientos> = []
    let cursor: string | null | undefined = undefined
    do {
      const response = yield* call("banco.movimientos.consultar", { ...input, ...(cursor ? { cursor } : {}) })
      const page: Movimientos = yield* Schema.decodeUnknown(MovimientosQueryOutput)(response.data)
      pages.push(page)
      cursor = page.cursor
    } while (cursor !== null && pages.length < 100)
    return { pages, movimientos: pages.flatMap((p) => p.movimientos) }
  })

// The suite's clock: the simulated bank, the sync worker and the 24-month window all read it.
layer(BancoTest, { excludeTestServices: true })("banco: sync a month, then read it from the cache", (it) => {
  it.effect("a synced month lists every account and pages through every movement, in posting order, with running balances", () =>
    Effect.gen(function* () {
      const { call } = yield* connected("12345678-5")
      const periodo = yield* monthsAgo(1)
      const first = yield* sync(call, periodo)
      assert.strictEqual(first.estado, "sincronizada")
      assert.strictEqual(first.conexion.estado, "sincronizada")
      const counts = first.trabajos[0]?.counts ?? {}
      assert.isAbove(counts["cuentas"] ?? 0, 0)
      assert.isAbove(counts["movimientos"] ?? 0, 0)
      assert.strictEqual(counts["nuevos"], counts["movimientos"])
      assert.strictEqual(counts["cuentasNuevas"], counts["cuentas"])

      const cuentas = yield* Effect.flatMap(call("banco.cuentas.consultar", {}), (r) => Schema.decodeUnknown(CuentasQueryOutput)(r.data))
      assert.strictEqual(cuentas.cuentas.length, counts["cuentas"])
      assert.isTrue(cuentas.sincronizacion?.completo)
      assert.isNull(cuentas.sincronizacionEnCurso)

      const [desde, hasta] = monthBounds(periodo)
      const { pages, movimientos } = yield* allMovimientos(call, { desde, hasta, limit: 37 })
      assert.strictEqual(movimientos.length, counts["movimientos"])
      assert.strictEqual(new Set(movimientos.map((m) => m.id)).size, movimientos.length, "no movement twice across pages")
      assert.isTrue(pages.slice(0, -1).every((p) => p.movimientos.length === 37))
      assert.isTrue(movimientos.every((m, i) => m.periodo === periodo && (movimientos[i - 1]?.postDate ?? m.postDate) <= m.postDate))
      assert.deepStrictEqual(pages[0]?.sincronizacion?.completo, true)
      for (const cuenta of cuentas.cuentas) {
        const own = movimientos.filter((m) => m.accountId === cuenta.id)
        assert.isTrue(
          own.every((m, i) => i === 0 || m.balance === (own[i - 1]?.balance ?? 0) + m.amount),
          `running balance of ${cuenta.id}`
        )
        const one = yield* allMovimientos(call, { desde, hasta, cuenta: cuenta.id, limit: 500 })
        assert.deepStrictEqual(one.movimientos.map((m) => m.id), own.map((m) => m.id))
      }

      const again = yield* sync(call, periodo)
      const recount = again.trabajos[0]?.counts ?? {}
      assert.notStrictEqual(again.trabajos[0]?.id, first.trabajos[0]?.id)
      assert.deepStrictEqual([recount["nuevos"], recount["cambiados"], recount["sinCambios"]], [0, 0, counts["movimientos"]])
      const withHistory = yield* call("banco.movimientos.consultar", { desde, hasta, limit: 5, incluirHistorial: true })
      const decoded = yield* Schema.decodeUnknown(MovimientosQueryOutput)(withHistory.data)
      assert.isTrue(decoded.movimientos.every((m) => m.version === 1 && m.historial?.length === 0))
    }))

  it.effect("a line the bank changed between syncs becomes version 2, and its earlier state is in historial", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const { call, connectionId } = yield* connected(`15000000-${rutDv(15000000)}`)
      const periodo = yield* monthsAgo(1)
      yield* sync(call, periodo)
      const [desde, hasta] = monthBounds(periodo)
      const before = yield* Effect.flatMap(
        call("banco.movimientos.consultar", { desde, hasta, limit: 1 }),
        (r) => Schema.decodeUnknown(MovimientosQueryOutput)(r.data)
      )
      const line = before.movimientos[0]
      if (line === undefined) return assert.fail("the month has movements")
      // As if the last sync had seen this line while the check was still pending.
      yield* sql`UPDATE bank_movements SET pending = true, content_hash = 'then' WHERE connection_id = ${connectionId} AND natural_key = ${line.id}`
      const again = yield* sync(call, periodo)
      assert.strictEqual(again.trabajos[0]?.counts["cambiados"], 1)
      const after = yield* Effect.flatMap(
        call("banco.movimientos.consultar", { desde, hasta, limit: 1, incluirHistorial: true }),
        (r) => Schema.decodeUnknown(MovimientosQueryOutput)(r.data)
      )
      const [now] = after.movimientos
      assert.strictEqual(now?.id, line.id)
      assert.strictEqual(now?.version, 2)
      assert.strictEqual(now?.pending, line.pending)
      assert.deepStrictEqual(now?.historial?.map((h) => [h.version, h.valores["pending"]]), [[1, true]])
    }))

  it.effect("with historial, a page and its history are of one moment: a sync committing between their reads is not half seen", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const { call, connectionId } = yield* connected(`16000000-${rutDv(16000000)}`)
      const periodo = yield* monthsAgo(1)
      yield* sync(call, periodo)
      const [desde, hasta] = monthBounds(periodo)
      const consult = Effect.flatMap(
        call("banco.movimientos.consultar", { desde, hasta, limit: 3, incluirHistorial: true }),
        (r) => Schema.decodeUnknown(MovimientosQueryOutput)(r.data)
      )
      const line = (yield* consult).movimientos[0]
      if (line === undefined) return assert.fail("the month has movements")

      // Fault injection: the page's history waits for a lock the test holds; meanwhile a write like the sync
      // worker's, made in that lock's transaction, commits version 2 of the page's first line.
      const page = yield* commitBetween({
        table: "cache_history",
        waitsAt: "SELECT natural_key, version, snapshot, valid_from",
        what: "the call waiting for the history",
        write: Effect.zipRight(
          sql`INSERT INTO cache_history (connection_id, resource, natural_key, version, snapshot, valid_from, valid_to, job_id)
            SELECT m.connection_id, ${MovimientosResource.resource}, m.natural_key, m.version,
                   to_jsonb(m) - 'id' - 'connection_id' - 'content_hash' - 'natural_key' - 'version' - 'synced_at', m.synced_at, now(), 'job_test'
            FROM bank_movements m WHERE m.connection_id = ${connectionId} AND m.natural_key = ${line.id}`,
          sql`UPDATE bank_movements SET description = description || ' (corregida)', version = version + 1, synced_at = now()
            WHERE connection_id = ${connectionId} AND natural_key = ${line.id}`
        )
      })(consult)

      const [first] = page.movimientos
      assert.deepStrictEqual([first?.id, first?.version, first?.historial], [line.id, 1, []], "the line and its history as of one moment")
      assert.isTrue(page.movimientos.every((m) => (m.historial ?? []).every((h) => h.version < m.version)), "histories of earlier versions")
      const after = (yield* consult).movimientos[0]
      assert.deepStrictEqual([after?.version, after?.historial?.map((h) => h.version)], [2, [1]], "the write happened")
    }))

  it.effect("a month the bank could not read for one account is kept, and says it is incomplete", () =>
    Effect.gen(function* () {
      const { call } = yield* connected("11111111-1", "parcial")
      const periodo = yield* monthsAgo(2)
      const result = yield* sync(call, periodo)
      assert.strictEqual(result.estado, "parcial")
      assert.strictEqual(result.trabajos[0]?.counts["cuentasSinLeer"], 1)
      const [desde, hasta] = monthBounds(periodo)
      const page = yield* Effect.flatMap(call("banco.movimientos.consultar", { desde, hasta }), (r) =>
        Schema.decodeUnknown(MovimientosQueryOutput)(r.data))
      assert.isFalse(page.sincronizacion?.completo)
    }))

  it.effect("a session the bank drops mid-read costs one more login, and the month still syncs completely", () =>
    Effect.gen(function* () {
      const { call } = yield* connected("76543210-3", "expira")
      const result = yield* sync(call, yield* monthsAgo(1))
      assert.strictEqual(result.estado, "sincronizada")
      assert.strictEqual(result.trabajos[0]?.attempts, 1, "logged in again within the attempt, not through a retry")
      assert.isAbove(result.trabajos[0]?.counts["movimientos"] ?? 0, 0)
      const sessions = (yield* (yield* BancoSimulator).sessions).filter((e) => e.rut === "76543210-3")
      assert.deepStrictEqual(sessions.map((e) => e.kind), ["start", "end", "start", "end"])
    }))

  it.effect("the status read beside the cache: the latest sync and the oldest under way for cuentas; the least recent of its months, and a sync under way among them, for a range", () =>
    Effect.gen(function* () {
      const { call, connectionId, principal } = yield* connected(`15783921-${rutDv(15783921)}`)
      const sql = yield* SqlClient.SqlClient
      const [older, newer] = [yield* monthsAgo(2), yield* monthsAgo(1)]
      assert.strictEqual((yield* sync(call, older)).estado, "sincronizada")
      assert.strictEqual((yield* sync(call, newer)).estado, "sincronizada")
      const coverage = new Map(
        (yield* sql<
          { scopeKey: string; syncedAt: Date }
        >`SELECT scope_key, synced_at FROM sync_coverage WHERE connection_id = ${connectionId}`)
          .map((c) => [c.scopeKey, c.syncedAt.toISOString()])
      )
      const syncedAt = (periodo: string) => coverage.get(scopeKeyOf({ periodo }))
      const cuentas = () => Effect.flatMap(call("banco.cuentas.consultar", {}), (r) => Schema.decodeUnknown(CuentasQueryOutput)(r.data))
      const range = (desde: string, hasta: string) =>
        Effect.flatMap(
          call("banco.movimientos.consultar", { desde: monthBounds(desde)[0], hasta: monthBounds(hasta)[1], limit: 2 }),
          (r) => Schema.decodeUnknown(MovimientosQueryOutput)(r.data)
        )

      assert.deepStrictEqual((yield* cuentas()).sincronizacion, { sincronizadoEn: syncedAt(newer)!, completo: true })
      const both = yield* range(older, newer)
      assert.strictEqual(both.movimientos.length, 2)
      assert.deepStrictEqual([both.sincronizacion, both.sincronizacionEnCurso], [
        { sincronizadoEn: syncedAt(older)!, completo: true },
        null
      ])
      assert.deepStrictEqual((yield* range(newer, newer)).sincronizacion, { sincronizadoEn: syncedAt(newer)!, completo: true })

      // a sync of the newer month under way (due far ahead, so no worker takes it while this runs)
      yield* sql`INSERT INTO sync_jobs (id, connection_id, workspace_id, connector, scope_key, scope, state, run_after, progress)
                 VALUES ('job_banco_status', ${connectionId}, ${principal.workspaceId}, 'banco', ${scopeKeyOf({ periodo: newer })},
                         ${JSON.stringify({ periodo: newer })}::jsonb, 'en_cola', '2100-01-01', '{"done": 0, "total": 3}')`
      const underWay = { trabajo: "job_banco_status", estado: "en_cola", progreso: { done: 0, total: 3 } }
      assert.deepStrictEqual((yield* cuentas()).sincronizacionEnCurso, underWay)
      assert.deepStrictEqual((yield* range(older, newer)).sincronizacionEnCurso, underWay)
      assert.isNull((yield* range(older, older)).sincronizacionEnCurso, "the sync under way is of another month")
      const [third, fourth] = [yield* monthsAgo(3), yield* monthsAgo(4)]
      const beyond = yield* range(third, third)
      assert.deepStrictEqual([beyond.movimientos, beyond.sincronizacion, beyond.sincronizacionEnCurso], [[], null, null])

      // a month never synced whose first sync is under way: wait on that one, sync the other
      yield* sql`INSERT INTO sync_jobs (id, connection_id, workspace_id, connector, scope_key, scope, state, run_after, progress)
                 VALUES ('job_banco_first', ${connectionId}, ${principal.workspaceId}, 'banco', ${scopeKeyOf({ periodo: third })},
                         ${JSON.stringify({ periodo: third })}::jsonb, 'en_cola', '2100-01-01', '{"done": 0, "total": 3}')`
      const waiting = yield* call("banco.movimientos.consultar", { desde: monthBounds(fourth)[0], hasta: monthBounds(third)[1] })
      assert.deepStrictEqual((waiting.next_actions ?? []).map((a) => [a.input?.["periodo"], a.reason]), [
        [fourth, `sync ${fourth} into the cache`],
        [third, `wait for the sync of ${third} under way to end`]
      ])
      assert.include(waiting.hint, `Run banco.conexion.sincronizar for ${fourth}, then consult again.`)
      assert.include(waiting.hint, `A sync of ${third} is under way`)
    }))

  it.effect("before any sync the cache answers empty and says what to run", () =>
    Effect.gen(function* () {
      const { call } = yield* connected("77123456-9")
      const current = yield* currentPeriodo
      const cuentas = yield* call("banco.cuentas.consultar", {})
      assert.deepStrictEqual(cuentas.data, { cuentas: [], sincronizacion: null, sincronizacionEnCurso: null })
      assert.deepStrictEqual(cuentas.next_actions, [{
        tool: "banco.conexion.sincronizar",
        reason: cuentas.next_actions?.[0]?.reason ?? "",
        input: { periodo: current }
      }])
      assert.include(cuentas.hint, "never been synced")

      const old = yield* monthsAgo(MESES_HISTORIA + 1)
      const recent = yield* monthsAgo(1)
      const movimientos = yield* call("banco.movimientos.consultar", { desde: `${old}-15`, hasta: `${recent}-03` })
      const page = yield* Schema.decodeUnknown(MovimientosQueryOutput)(movimientos.data)
      assert.deepStrictEqual(page.movimientos, [])
      assert.isNull(page.sincronizacion)
      assert.include(movimientos.hint, `cannot be synced`)
      assert.include(movimientos.hint, old)
      const suggested = (movimientos.next_actions ?? []).map((a) => a.input?.["periodo"])
      assert.strictEqual(suggested.length, MESES_HISTORIA, "every month from the oldest the bank shows up to last month")
      assert.notInclude(suggested, old)
      assert.include(suggested, recent)
    }))

  it.effect("any range is served: from 1900 to 9999 it lists the synced month's movements and names the months to sync", () =>
    Effect.gen(function* () {
      const { call } = yield* connected(`17000000-${rutDv(17000000)}`)
      const periodo = yield* monthsAgo(1)
      assert.strictEqual((yield* sync(call, periodo)).estado, "sincronizada")
      const [desde, hasta] = monthBounds(periodo)
      const month = yield* allMovimientos(call, { desde, hasta, limit: 500 })
      const { movimientos, pages } = yield* allMovimientos(call, { desde: "1900-01-01", hasta: "9999-12-31", limit: 500 })
      assert.isAbove(month.movimientos.length, 0)
      assert.deepStrictEqual(movimientos.map((m) => m.id), month.movimientos.map((m) => m.id))
      assert.isNull(pages[0]?.sincronizacion ?? null, "most months of the range were never synced")
      const first = yield* call("banco.movimientos.consultar", { desde: "1900-01-01", hasta: "9999-12-31", limit: 1 })
      assert.include(first.hint, "Not synced: 1900-01..")
      assert.include(first.hint, "..9999-12")
      assert.include(first.hint, "cannot be synced")
      assert.strictEqual((first.next_actions ?? []).length, MESES_HISTORIA, "every month the bank shows but the one synced")
    }))

  it.effect("a cursor pages only the query it came from: another range, account or connection, or a forged one, is CursorRejected", () =>
    Effect.gen(function* () {
      const executor = yield* Executor
      const { call, principal } = yield* connected(`17000000-${rutDv(17000000)}`)
      const other = yield* bancoConnection(principal, `17000001-${rutDv(17000001)}`)
      const callOther = (tool: string, input: unknown) => executor.call(tool, input, callContext(principal, { connectionId: other.id }))
      const periodo = yield* monthsAgo(1)
      assert.strictEqual((yield* sync(call, periodo)).estado, "sincronizada")
      assert.strictEqual((yield* sync(callOther, periodo)).estado, "sincronizada")
      const [desde, hasta] = monthBounds(periodo)
      const query = { desde, hasta, limit: 5 }
      const first = yield* Effect.flatMap(
        call("banco.movimientos.consultar", query),
        (r) => Schema.decodeUnknown(MovimientosQueryOutput)(r.data)
      )
      assert.isNotNull(first.cursor)
      const cursor = first.cursor!
      const rejection = (via: typeof call, input: Record<string, unknown>) =>
        Effect.map(refused(via("banco.movimientos.consultar", input), JSON.stringify(input)), (error) => ({
          tag: error._tag,
          reason: error._tag === "CursorRejected" ? error.reason : undefined,
          hint: error._tag === "CursorRejected" ? error.hint : undefined
        }))
      const startAgain = "Call banco.movimientos.consultar again without cursor, then follow the cursors it answers"
      const base64 = (value: unknown) => Buffer.from(JSON.stringify(value), "utf8").toString("base64url")
      const cases = [
        [call, { ...query, desde: yield* monthsAgo(2).pipe(Effect.map((p) => monthBounds(p)[0])), cursor }, "other_search"],
        [call, { ...query, cuenta: first.movimientos[0]!.accountId, cursor }, "other_search"],
        [callOther, { ...query, cursor }, "other_search"],
        [call, { ...query, cursor: base64({ postDate: desde, id: -1 }) }, "tampered"],
        [call, { ...query, cursor: `${cursor.slice(0, 4)}${cursor[4] === "A" ? "B" : "A"}${cursor.slice(5)}` }, "tampered"]
      ] as const
      for (const [via, input, reason] of cases) {
        assert.deepStrictEqual(yield* rejection(via, input), { tag: "CursorRejected", reason, hint: startAgain }, JSON.stringify(input))
      }
      const { movimientos } = yield* allMovimientos(call, query)
      const { movimientos: whole } = yield* allMovimientos(call, { desde, hasta, limit: 500 })
      assert.isAbove(whole.length, 5)
      assert.deepStrictEqual(movimientos.map((m) => m.id), whole.map((m) => m.id), "the same query pages every movement once, in order")
    }))

  it.effect("bad input is refused naming the field: future or too old months, an inverted range, a foreign cursor, an account id too long", () =>
    Effect.gen(function* () {
      const { call } = yield* connected("9876543-3")
      const refused = (tool: string, input: unknown) => Effect.flip(call(tool, input))
      const future = yield* refused("banco.conexion.sincronizar", { periodo: yield* monthsAgo(-1) })
      const tooOld = yield* refused("banco.conexion.sincronizar", { periodo: yield* monthsAgo(MESES_HISTORIA + 1) })
      const inverted = yield* refused("banco.movimientos.consultar", { desde: "2026-03-02", hasta: "2026-03-01" })
      const cursor = yield* refused("banco.movimientos.consultar", { desde: "2026-03-01", hasta: "2026-03-31", cursor: "bm90LWEtY3Vyc29y" })
      const paths = [future, tooOld, inverted, cursor].map((e) => (e._tag === "InvalidInput" ? e.issues.map((i) => i.path) : [e._tag]))
      assert.deepStrictEqual(paths, [["input.periodo"], ["input.periodo"], ["input.desde"], ["CursorRejected"]])
      const limit = yield* refused("banco.movimientos.consultar", { desde: "2026-03-01", hasta: "2026-03-31", limit: 501 })
      assert.strictEqual(limit._tag, "InvalidInput")
      const cuenta = yield* refused("banco.movimientos.consultar", {
        desde: "2026-03-01",
        hasta: "2026-03-31",
        cuenta: `acc_${"x".repeat(5_000)}`
      })
      assert.deepInclude(cuenta, {
        _tag: "InvalidInput",
        issues: [{ path: "input.cuenta", message: "must be at most 64 characters, got 5,004" }]
      })
      const edge = yield* sync(call, yield* monthsAgo(MESES_HISTORIA))
      assert.strictEqual(edge.estado, "sincronizada", `${MESES_HISTORIA} months back is still within the bank's history`)
    }))
})
