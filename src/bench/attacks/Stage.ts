import { Command, FileSystem } from "@effect/platform"
import { Clock, Data, Duration, Effect, Ref, Stream } from "effect"
import { fileURLToPath } from "node:url"
import pg from "pg"
import { awaitHttp, type Child, freePort, runToEnd } from "../Children.ts"

export class StageFailed extends Data.TaggedError("StageFailed")<{ readonly message: string }> {}

const root = fileURLToPath(new URL("../../../", import.meta.url))
const CLI = "dist/bin/brein.js"

export interface Database {
  readonly name: string
  readonly url: string
  readonly dataDir: string
}

export interface Service extends Child {
  readonly port: number
  readonly origin: string
  /** how many lines the service has written to stdout and stderr so far */
  readonly lines: Effect.Effect<number>
}

export interface Stage {
  readonly db: Database
  readonly service: Service
  readonly keys: { readonly free: string; readonly paid: string }
  readonly sql: pg.Client
}

/** A pg client for the scope. */
export const connect = Effect.fn("Attacks.connect")(function* (url: string) {
  const client = new pg.Client({ connectionString: url })
  // a backend terminated on purpose must not crash the bench through an unhandled 'error' event
  client.on("error", () => undefined)
  yield* Effect.acquireRelease(
    Effect.tryPromise({ try: () => client.connect(), catch: (cause) => new StageFailed({ message: `connect: ${String(cause)}` }) }),
    () => Effect.promise(() => client.end()).pipe(Effect.timeout(Duration.seconds(5)), Effect.ignore)
  )
  return client
})

export const query = <R extends pg.QueryResultRow = Record<string, unknown>>(
  client: pg.Client,
  text: string,
  values: ReadonlyArray<unknown> = []
) =>
  Effect.tryPromise({
    try: () => client.query<R>(text, [...values]),
    catch: (cause) => new StageFailed({ message: `${text.slice(0, 80)}: ${cause instanceof Error ? cause.message : String(cause)}` })
  })

/** Terminates every backend of the client's database but the client's own: how many it terminated. */
export const terminateBackends = (client: pg.Client) =>
  scalar(
    client,
    `SELECT count(pg_terminate_backend(pid))::int AS value FROM pg_stat_activity
     WHERE datname = current_database() AND pid <> pg_backend_pid()`
  )

export const scalar = (client: pg.Client, text: string, values: ReadonlyArray<unknown> = []) =>
  Effect.map(query<{ value: string | number }>(client, text, values), (result) => Number(result.rows[0]?.value ?? 0))

/** A new database on the run's PostgreSQL and a data folder for its secrets; both dropped with the scope. */
export const freshDatabase = Effect.fn("Attacks.freshDatabase")(function* (adminUrl: string, label: string) {
  const fs = yield* FileSystem.FileSystem
  const name = `brein_attack_${label}_${(yield* Clock.currentTimeMillis).toString(36)}`
  const admin = yield* connect(adminUrl)
  yield* Effect.acquireRelease(
    query(admin, `CREATE DATABASE ${name}`),
    () => query(admin, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).pipe(Effect.ignore)
  )
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  const dataDir = yield* fs.makeTempDirectoryScoped({ prefix: "brein-attack-" })
  return { name, url: url.toString(), dataDir } satisfies Database
})

const baseEnv = (db: Database) => ({ DATABASE_URL: db.url, BREIN_DATA_DIR: db.dataDir })
// Only the rate-limit attack measures the per-key limit; the others send more than its default on purpose.
const serviceEnv = (db: Database) => ({ ...baseEnv(db), BREIN_RATE_LIMIT_KEY: "100000000/60s" })

/** `node dist/bin/brein.js serve` on a free port over `db`; answers /health before this returns; SIGTERM with the scope. */
export const startService = Effect.fn("Attacks.startService")(function* (
  db: Database,
  options: { readonly name?: string; readonly env?: Record<string, string> } = {}
) {
  const port = yield* freePort
  const command = Command.make(process.execPath, "--max-semi-space-size=64", CLI, "serve").pipe(
    Command.env({ ...serviceEnv(db), PORT: String(port), ...options.env }),
    Command.workingDirectory(root)
  )
  const started = yield* Command.start(command)
  const tail = yield* Ref.make<ReadonlyArray<string>>([])
  const count = yield* Ref.make(0)
  const collect = (stream: Stream.Stream<Uint8Array, unknown>) =>
    stream.pipe(
      Stream.decodeText(),
      Stream.splitLines,
      Stream.runForEach((line) =>
        Effect.zipRight(Ref.update(count, (n) => n + 1), Ref.update(tail, (lines) => [...lines.slice(-39), line]))
      ),
      Effect.ignore
    )
  yield* Effect.forkScoped(collect(started.stdout))
  yield* Effect.forkScoped(collect(started.stderr))
  // (after the readers: finalizers run in reverse, and the service must keep its stdout and stderr while it stops)
  // stopped as an operator would (SIGTERM: it drains and writes its last audit checkpoint); one that
  // ignores SIGTERM must not outlive the run
  yield* Effect.addFinalizer(() =>
    started.isRunning.pipe(
      Effect.flatMap((running) => (running ? started.kill("SIGTERM").pipe(Effect.timeout(Duration.seconds(20))) : Effect.void)),
      Effect.zipRight(started.isRunning),
      Effect.flatMap((running) => (running ? started.kill("SIGKILL") : Effect.void)),
      Effect.ignore
    )
  )
  const origin = `http://127.0.0.1:${port}`
  const service: Service = {
    name: options.name ?? "brein",
    process: started,
    output: Effect.map(Ref.get(tail), (lines) => lines.join("\n")),
    lines: Ref.get(count),
    port,
    origin
  }
  yield* awaitHttp(service, `${origin}/health`)
  return service
})

/** A brein command against `db` (the built CLI): stdout, stderr, exit code. */
export const cli = (db: Database, args: ReadonlyArray<string>) =>
  runToEnd({ name: `brein ${args.join(" ")}`, args: [CLI, ...args], env: baseEnv(db), tsx: false })

export const createKey = Effect.fn("Attacks.createKey")(function* (db: Database, workspace: string, plan: "free" | "paid") {
  const result = yield* cli(db, ["keys", "create", "--workspace", workspace, "--plan", plan])
  const key = result.stdout.trim()
  if (result.exitCode !== 0 || key === "") {
    return yield* new StageFailed({ message: `keys create exited ${result.exitCode}: ${result.stderr}` })
  }
  return key
})

/** A fresh database, a service on it, a free and a paid workspace with a key each, and a superuser client. */
export const stage = Effect.fn("Attacks.stage")(function* (adminUrl: string, label: string, env: Record<string, string> = {}) {
  const db = yield* freshDatabase(adminUrl, label)
  const service = yield* startService(db, { env })
  const free = yield* createKey(db, "attack-free", "free")
  const paid = yield* createKey(db, "attack-paid", "paid")
  const sql = yield* connect(db.url)
  return { db, service, keys: { free, paid }, sql } satisfies Stage
})

/** Resident memory of a process in bytes (VmRSS), none off Linux or once it exited. */
export const rss = (pid: number) =>
  Effect.flatMap(FileSystem.FileSystem, (fs) => fs.readFileString(`/proc/${pid}/status`)).pipe(
    Effect.map((status) => Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN) * 1024),
    Effect.orElseSucceed(() => Number.NaN)
  )
