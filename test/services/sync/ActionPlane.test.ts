import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import type { ConnectionId } from "../../../schema/Ids.ts"
import { BancoSimulator } from "../../../services/upstream/BancoSimulator.ts"
import { SiiSimulator } from "../../../services/upstream/SiiSimulator.ts"
import { bancoConnection, execute, rut, siiConnection, simulatedServices } from "../../support/Connected.ts"
import { TestDatabase } from "../../support/TestDatabase.ts"
import { issuePrincipal } from "../../support/TestLayers.ts"

const Live = simulatedServices().pipe(Layer.provideMerge(TestDatabase))

/**
 * Every table but the executor's own records (the audit log, and the reads of the hourly ceiling and their count per workspace, which the
 * budget step takes), one digest each: any row written, changed or deleted changes it.
 */
const businessTables = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const tables = yield* sql<{ name: string }>`
    SELECT table_name AS name FROM information_schema.tables
    WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name NOT IN ('audit_log', 'audit_checkpoint', 'read_usage', 'read_windows') ORDER BY 1`
  const digests: Record<string, string> = {}
  for (const { name } of tables) {
    const [row] = yield* sql.unsafe<{ digest: string }>(
      `SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) AS digest FROM ${name} t`
    )
    digests[name] = row?.digest ?? ""
  }
  return digests
})

const readsTaken = Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM read_usage`).pipe(
  Effect.map((rows) => rows[0]?.n ?? 0)
)

const auditRows = Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM audit_log`).pipe(
  Effect.map((rows) => rows[0]?.n ?? 0)
)

const sessionCount = Effect.all([Effect.flatMap(SiiSimulator, (s) => s.sessions), Effect.flatMap(BancoSimulator, (s) => s.sessions)]).pipe(
  Effect.map(([sii, banco]) => sii.length + banco.length)
)

layer(Live, { excludeTestServices: true })("the action plane", (it) => {
  it.effect("action tools (.consultar of sii and banco, indicadores, core, echo) change no table but the audit log and open no session", () =>
    Effect.gen(function* () {
      const { principal } = yield* issuePrincipal("paid")
      const sii = yield* siiConnection(principal, rut(77400001))
      const banco = yield* bancoConnection(principal, rut(77400002))
      yield* execute(principal, "sii.conexion.sincronizar", { periodo: "2026-10", perspectiva: "compras", esperar: 20 }, sii.id)
      yield* execute(principal, "banco.conexion.sincronizar", { periodo: "2026-10", esperar: 20 }, banco.id)

      const sessionsBefore = yield* sessionCount
      const tablesBefore = yield* businessTables
      const auditBefore = yield* auditRows
      const readsBefore = yield* readsTaken
      const calls: ReadonlyArray<readonly [string, unknown, ConnectionId | undefined]> = [
        ["sii.rcv.consultar", { periodo: "2026-10", perspectiva: "compras", limit: 5, incluirHistorial: true }, sii.id],
        ["sii.rcv.consultar", { periodo: "2026-10", perspectiva: "compras", tipoDte: 33, estado: "registro" }, sii.id],
        ["sii.rcv.consultar", { periodo: "2026-02", perspectiva: "ventas" }, sii.id],
        ["sii.rcv.resumen.consultar", { periodo: "2026-10", perspectiva: "compras" }, sii.id],
        ["banco.cuentas.consultar", {}, banco.id],
        ["banco.movimientos.consultar", { desde: "2026-10-01", hasta: "2026-10-31", limit: 5, incluirHistorial: true }, banco.id],
        ["banco.movimientos.consultar", { desde: "2026-01-01", hasta: "2026-01-31" }, banco.id],
        ["indicadores.valor.obtener", { codigo: "uf", fecha: "2026-10-15" }, undefined],
        ["core.timestamp.now", { timezone: "America/Santiago" }, undefined],
        ["echo.message.reflect", { message: "hola" }, undefined]
      ]
      for (const [tool, input, connection] of calls) {
        const response = yield* execute(principal, tool, input, connection)
        assert.deepStrictEqual([response.meta.plane, response.meta.audit_status], ["action", "recorded"], tool)
      }
      assert.deepStrictEqual(yield* businessTables, tablesBefore)
      assert.strictEqual(yield* auditRows, auditBefore + calls.length, "one audit row per call, and nothing else")
      // the seven .consultar calls cost a read of the hour each; indicadores, core and echo are free
      assert.strictEqual(yield* readsTaken, readsBefore + 7, "one read of the hour per read-cost call")
      assert.strictEqual(yield* sessionCount, sessionsBefore, "no login to SII or the bank")
    }))

  it.effect("every .consultar of a scope never synced says so and points to its sincronizar", () =>
    Effect.gen(function* () {
      const { principal } = yield* issuePrincipal("paid")
      const sii = yield* siiConnection(principal, rut(77400003))
      const banco = yield* bancoConnection(principal, rut(77400004))
      const cases: ReadonlyArray<readonly [string, unknown, ConnectionId, string, unknown]> = [
        ["sii.rcv.consultar", { periodo: "2026-03", perspectiva: "ventas" }, sii.id, "sii.conexion.sincronizar", {
          periodo: "2026-03",
          perspectiva: "ventas"
        }],
        ["sii.rcv.resumen.consultar", { periodo: "2026-03", perspectiva: "compras" }, sii.id, "sii.conexion.sincronizar", {
          periodo: "2026-03",
          perspectiva: "compras"
        }],
        ["banco.movimientos.consultar", { desde: "2026-03-01", hasta: "2026-03-31" }, banco.id, "banco.conexion.sincronizar", {
          periodo: "2026-03"
        }],
        ["banco.cuentas.consultar", {}, banco.id, "banco.conexion.sincronizar", undefined]
      ]
      for (const [tool, input, connection, sync, syncInput] of cases) {
        const response = yield* execute(principal, tool, input, connection)
        const data = response.data as { readonly sincronizacion: unknown }
        assert.strictEqual(data.sincronizacion, null, tool)
        assert.match(response.hint ?? "", /not synced/i, tool)
        assert.include(response.hint ?? "", sync, tool)
        assert.deepStrictEqual(response.next_actions?.map((a) => a.tool), [sync], tool)
        if (syncInput !== undefined) assert.deepStrictEqual(response.next_actions?.[0]?.input, syncInput, tool)
      }
    }))
})
