import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Effect, Exit, Layer, Logger, LogLevel } from "effect"
import { randomBytes } from "node:crypto"
import { ConnectionId } from "../../../schema/Ids.ts"
import { Connections } from "../../../services/connections/Connections.ts"
import { Vault, VaultKey } from "../../../services/connections/Vault.ts"
import { newIdNow } from "../../../services/Ids.ts"
import { bancoConnection, execute, jobsOf, rut, SECRET_KEY, siiConnection, simulatedServices } from "../../support/Connected.ts"
import { TestDatabase } from "../../support/TestDatabase.ts"
import { issuePrincipal } from "../../support/TestLayers.ts"

const lines: Array<string> = []
/** Every log line of the service graph, at every level, kept for the test to search. */
const CapturedLogs = Layer.merge(
  Logger.replace(Logger.defaultLogger, Logger.map(Logger.logfmtLogger, (line) => void lines.push(line))),
  Logger.minimumLogLevel(LogLevel.All)
)

// Built after the test database (which sets the tests' level), so the sync's debug lines are kept.
const Live = simulatedServices().pipe(Layer.provide(CapturedLogs), Layer.provideMerge(TestDatabase))

const CLAVE = `clave-${randomBytes(6).toString("hex")}`
const USER = rut(76800001)

const vaultWith = (key: Buffer) => Vault.Default.pipe(Layer.provide(VaultKey.fixed(key)))

/** Every row of every table as text, the audit log and the sync jobs included. */
const everyRow = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const tables = yield* sql<{ name: string }>`
    SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`
  const texts: Array<string> = []
  for (const { name } of tables) {
    const rows = yield* sql.unsafe<{ text: string }>(`SELECT t::text AS text FROM ${name} t`)
    texts.push(...rows.map((r) => `${name}: ${r.text}`))
  }
  return texts
})

layer(Live, { excludeTestServices: true })("credentials at rest and in flight", (it) => {
  it.effect("the clave reaches no tool response, job, log line or table row (sii and banco); the column is ciphertext only the key opens", () =>
    Effect.gen(function* () {
      const { principal } = yield* issuePrincipal("paid")
      const connection = yield* siiConnection(principal, USER, CLAVE)
      const synced = yield* execute(principal, "sii.conexion.sincronizar", { periodo: "2026-10", esperar: 20 }, connection.id)
      const consulted = yield* execute(
        principal,
        "sii.rcv.consultar",
        { periodo: "2026-10", perspectiva: "ventas", limit: 3 },
        connection.id
      )
      assert.strictEqual((synced.data as { estado: string }).estado, "sincronizada", "the sync logged in with the stored clave")
      const banco = yield* bancoConnection(principal, rut(76800003), CLAVE)
      const bancoSynced = yield* execute(principal, "banco.conexion.sincronizar", { periodo: "2026-10", esperar: 20 }, banco.id)
      const bancoConsulted = yield* execute(principal, "banco.cuentas.consultar", {}, banco.id)
      assert.strictEqual((bancoSynced.data as { estado: string }).estado, "sincronizada")
      const views = [
        connection,
        banco,
        yield* (yield* Connections).get(principal, connection.id),
        yield* (yield* Connections).list(principal)
      ]
      const jobs = [...(yield* jobsOf(connection.id)), ...(yield* jobsOf(banco.id))]
      for (
        const [what, value] of [["tool responses", [synced, consulted, bancoSynced, bancoConsulted]], ["connection views", views], [
          "jobs",
          jobs
        ]] as const
      ) {
        assert.notInclude(JSON.stringify(value), CLAVE, what)
      }

      assert.isAbove(lines.length, 0, "the logs were captured")
      assert.isTrue(lines.some((l) => l.includes("upstream session start")), "debug lines of the sync are among them")
      for (const line of lines) assert.notInclude(line, CLAVE, "a log line")

      const rows = yield* everyRow
      assert.isTrue(rows.some((r) => r.startsWith("audit_log:")), "the calls were audited")
      for (const row of rows) assert.notInclude(row, CLAVE, "a table row")

      const sql = yield* SqlClient.SqlClient
      const [stored] = yield* sql<{ credentials: string }>`SELECT credentials FROM connections WHERE id = ${connection.id}`
      const sealed = stored?.credentials ?? ""
      for (const plain of [CLAVE, USER, USER.replace("-", ""), Buffer.from(CLAVE).toString("base64").slice(0, 12)]) {
        assert.notInclude(sealed, plain)
      }
      const opened = yield* Effect.flatMap(Vault, (v) => v.open(sealed)).pipe(Effect.provide(vaultWith(Buffer.from(SECRET_KEY, "base64"))))
      assert.deepStrictEqual(JSON.parse(opened), { rut: USER, clave: CLAVE })
      const wrongKey = yield* Effect.exit(Effect.flatMap(Vault, (v) => v.open(sealed)).pipe(Effect.provide(vaultWith(randomBytes(32)))))
      assert.isTrue(Exit.isFailure(wrongKey), "another key does not open it")
      const [version, iv, tag, body] = sealed.split(":")
      const flipped = `${version}:${iv}:${tag}:${
        Buffer.from(Buffer.from(body ?? "", "base64").map((b, i) => (i === 0 ? b ^ 1 : b))).toString("base64")
      }`
      const tampered = yield* Effect.exit(
        Effect.flatMap(Vault, (v) => v.open(flipped)).pipe(Effect.provide(vaultWith(Buffer.from(SECRET_KEY, "base64"))))
      )
      assert.isTrue(Exit.isFailure(tampered), "a tampered ciphertext does not open")
    }))

  it.effect("the same clave sealed twice gives two different ciphertexts", () =>
    Effect.gen(function* () {
      const { principal } = yield* issuePrincipal("paid")
      const one = yield* siiConnection(principal, rut(76800002), CLAVE)
      const two = yield* siiConnection(principal, rut(76800002), CLAVE)
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ credentials: string }>`SELECT credentials FROM connections WHERE id IN (${one.id}, ${two.id})`
      assert.strictEqual(new Set(rows.map((r) => r.credentials)).size, 2)
    }))
  it.effect("credentials another key sealed: the sync ends in error credenciales_ilegibles, and the log says which key failed", () =>
    Effect.gen(function* () {
      const { principal } = yield* issuePrincipal("paid")
      // sealed by a key this server does not have (a data folder restored with another secret.key)
      const sealed = yield* Effect.flatMap(Vault, (vault) => vault.seal(JSON.stringify({ rut: rut(76800005), clave: CLAVE }))).pipe(
        Effect.provide(vaultWith(randomBytes(32)))
      )
      const id = ConnectionId.make(newIdNow("conn"))
      const sql = yield* SqlClient.SqlClient
      yield* sql`INSERT INTO connections (id, workspace_id, connector, credentials) VALUES (${id}, ${principal.workspaceId}, 'sii', ${sealed})`
      const synced = yield* execute(principal, "sii.conexion.sincronizar", { periodo: "2026-10", esperar: 20 }, id)
      assert.strictEqual((synced.data as { estado: string }).estado, "error")
      const jobs = yield* jobsOf(id)
      assert.isAbove(jobs.length, 0)
      for (const job of jobs) {
        assert.strictEqual(job.state, "error")
        assert.strictEqual(job.errorReason, "credenciales_ilegibles")
        assert.include(job.errorMessage, "its credentials key cannot be used")
        assert.strictEqual(job.attempts, 1, "no attempt is spent again on a key that cannot open them")
      }
      const connection = yield* (yield* Connections).get(principal, id)
      assert.deepStrictEqual([connection.state, connection.reason], ["error", "credenciales_ilegibles"])
      assert.include(connection.hint, `PATCH /api/v1/connections/${id}`)
      assert.isTrue(
        lines.some((line) => line.includes("a sync cannot open its connection's credentials") && line.includes("could not be opened")),
        "the log names the key and why"
      )
    }))
})
