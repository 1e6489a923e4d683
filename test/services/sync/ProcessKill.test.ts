import { Command, FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Redacted, Ref, Schedule, Stream } from "effect"
import { databaseFromUrl } from "../../../layers/Database.ts"
import { chileDayOf } from "../../../services/upstream/CivilDate.ts"
import { rcvDocuments } from "../../../services/upstream/RcvGenerator.ts"
import { freePort } from "../../src/cli/Brein.ts"
import { breinCommand } from "../../support/Bin.ts"
import { allFinished, execute, rut, SECRET_KEY, siiConnection, simulatedServices, waitForJobs } from "../../support/Connected.ts"
import { freshDatabase } from "../../support/TestDatabase.ts"
import { issuePrincipal } from "../../support/TestLayers.ts"

const PERIODO = "2026-10"
const CLAVE = "clave-del-proceso-7731"
/**
 * One audit key for this process and both children: each process signs checkpoints, and one with a key of its own
 * would find the others' checkpoints signed with another (at start it refuses to run).
 */
const AUDIT_KEY = Buffer.from("brein-kill-audit-key-0123456789!").toString("base64")
/** How much of a child's log a failed wait shows. */
const LOG_TAIL = 6000

/** `brein serve` in a process of its own over the test database; its stderr (the logs) is collected. */
const serve = (url: Redacted.Redacted<string>, settings: Readonly<Record<string, string>>) =>
  Effect.gen(function* () {
    const dataDir = yield* (yield* FileSystem.FileSystem).makeTempDirectoryScoped({ prefix: "brein-kill-" })
    const port = yield* freePort
    const child = yield* Command.start(
      breinCommand("serve").pipe(
        Command.env({
          DATABASE_URL: Redacted.value(url),
          BREIN_DATA_DIR: dataDir,
          PORT: String(port),
          LOG_LEVEL: "Debug",
          BREIN_SECRET_KEY: SECRET_KEY,
          BREIN_AUDIT_KEY: AUDIT_KEY,
          BREIN_SYNC_LEASE_SECONDS: "1",
          // The killed process's session lease (one login per user) must run out before the next one logs in.
          BREIN_SESSION_LEASE_SECONDS: "2",
          BREIN_SESSION_LEASE_RENEW_SECONDS: "0.5",
          BREIN_SYNC_POLL_MS: "20",
          ...settings
        })
      )
    )
    const logs = yield* Ref.make("")
    yield* Effect.forkScoped(Stream.runDrain(child.stdout))
    const reading = yield* Effect.forkScoped(
      Stream.runForEach(Stream.decodeText(child.stderr), (text) => Ref.update(logs, (all) => all + text))
    )
    return {
      child,
      /** Everything it logged, once it has exited. */
      allLogs: Effect.zipRight(Fiber.join(reading), Ref.get(logs)),
      /** `wait`, whose failure carries the end of what the process logged so far (what it did instead). */
      showingLogs: <A, R>(wait: Effect.Effect<A, never, R>) =>
        Effect.catchAllDefect(wait, (defect) =>
          Effect.flatMap(Ref.get(logs), (all) =>
            Effect.die(new Error(`${String(defect)}\n--- the end of brein serve's logs ---\n${all.slice(-LOG_TAIL)}`)))),
      /** Waits until it has logged `text` (the logs arrive through a pipe, a little after the fact). */
      logged: (text: string) =>
        Effect.repeat(Ref.get(logs), {
          until: (all) =>
            all.includes(text),
          schedule: Schedule.spaced("20 millis")
        }).pipe(
          Effect.timeout("10 seconds")
        )
    }
  })

const jobRows = (connectionId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ state: string; attempts: number; documents: number; coverage: number }>`
      SELECT j.state, j.attempts,
             (SELECT count(*)::int FROM rcv_documents d WHERE d.connection_id = j.connection_id) AS documents,
             (SELECT count(*)::int FROM sync_coverage c WHERE c.connection_id = j.connection_id) AS coverage
      FROM sync_jobs j WHERE j.connection_id = ${connectionId}`)

describe("brein serve killed with SIGKILL mid-sync", () => {
  it.scopedLive(
    "leaves no partial scope; the next process retries the job (attempts = 2) with exactly the right rows",
    () =>
      Effect.gen(function* () {
        const url = yield* freshDatabase
        // This process only records the job: its worker is off, the children run it.
        const here = yield* Layer.build(
          simulatedServices({
            BREIN_SYNC_WORKER: "false",
            BREIN_AUDIT_KEY: AUDIT_KEY,
            // it signs the checkpoint of its sincronizar row within moments (as under load it did after 5 s): the children start over it
            BREIN_AUDIT_CHECKPOINT_MS: "50"
          }).pipe(Layer.provideMerge(databaseFromUrl(url)))
        )
        yield* Effect.gen(function* () {
          const user = rut(76300001)
          const { principal } = yield* issuePrincipal("paid")
          const connection = yield* siiConnection(principal, user, CLAVE)
          yield* execute(principal, "sii.conexion.sincronizar", { periodo: PERIODO, perspectiva: "compras", esperar: 0 }, connection.id)

          const firstLogs = yield* Effect.scoped(Effect.gen(function* () {
            const { allLogs, child, showingLogs } = yield* serve(url, { UPSTREAM_TIME_SCALE: "0.05" })
            yield* showingLogs(
              waitForJobs(connection.id, (jobs) => jobs[0]?.state === "sincronizando" && jobs[0].progress.done >= 1, "40 seconds")
            )
            yield* child.kill("SIGKILL")
            return yield* allLogs
          }))
          assert.deepStrictEqual(yield* jobRows(connection.id), [{ state: "sincronizando", attempts: 1, documents: 0, coverage: 0 }])

          // The children read the machine's clock: the day their simulator saw lies between these two.
          const firstDay = chileDayOf(Date.now())
          const secondLogs = yield* Effect.scoped(Effect.gen(function* () {
            const { logged, showingLogs } = yield* serve(url, { UPSTREAM_TIME_SCALE: "0" })
            yield* showingLogs(waitForJobs(connection.id, allFinished, "40 seconds"))
            return yield* logged("upstream session end")
          }))
          const days = [...new Set([firstDay, chileDayOf(Date.now())])]
          const [row] = yield* jobRows(connection.id)
          const expected = row?.documents ?? -1
          assert.include(days.map((day) => rcvDocuments(user, PERIODO, "compras", day).length), expected)
          assert.deepStrictEqual(yield* jobRows(connection.id), [{ state: "sincronizada", attempts: 2, documents: expected, coverage: 1 }])
          const sql = yield* SqlClient.SqlClient
          const [distinct] = yield* sql<
            { n: number }
          >`SELECT count(DISTINCT natural_key)::int AS n FROM rcv_documents WHERE connection_id = ${connection.id}`
          assert.strictEqual(distinct?.n, expected)
          assert.include(firstLogs, "upstream session start", "the killed process was inside an SII session")
          assert.notInclude(firstLogs, "upstream session end", "and died there, without logging out")
          assert.notInclude(firstLogs + secondLogs, CLAVE, "the clave never reaches the logs")
        }).pipe(Effect.provide(here))
      }).pipe(Effect.provide(NodeContext.layer)),
    120_000
  )
})
