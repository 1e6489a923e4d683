import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import type { Redacted } from "effect"
import { ConfigProvider, Context, Effect, type Fiber, Layer, Schedule, String as Str } from "effect"
import { randomBytes } from "node:crypto"
import { readFileSync } from "node:fs"
import { ServicesLive } from "../../../layers/App.ts"
import { databaseFromUrl } from "../../../layers/Database.ts"
import { Executor } from "../../../services/pipeline/Executor.ts"
import { Workspaces } from "../../../services/workspace/Workspaces.ts"
import { heldPort } from "../../support/HeldPort.ts"
import { freshDatabase } from "../../support/TestDatabase.ts"
import { databaseEnv, freePort, type Run, runBrein, tempDataDir } from "./Brein.ts"

class CliDatabaseUrl extends Context.Tag("test/cli/CliDatabaseUrl")<CliDatabaseUrl, Redacted.Redacted<string>>() {}

/** A fresh database the spawned CLI points at, and the services over it for checking what the CLI did. */
// The services here and the CLI share the audit checkpoint key, as processes on one deployment must.
const AUDIT_KEY = randomBytes(32).toString("base64")
const withAuditKey = Layer.setConfigProvider(
  ConfigProvider.fromMap(new Map([["BREIN_AUDIT_KEY", AUDIT_KEY]])).pipe(ConfigProvider.orElse(() => ConfigProvider.fromEnv()))
)

const CliTest = Layer.unwrapScoped(
  Effect.map(
    freshDatabase,
    (url) => ServicesLive.pipe(Layer.provideMerge(databaseFromUrl(url)), Layer.merge(Layer.succeed(CliDatabaseUrl, url)))
  )
).pipe(Layer.provideMerge(NodeContext.layer), Layer.provide(withAuditKey))

const brein = (...args: Array<string>) =>
  Effect.gen(function* () {
    const url = yield* CliDatabaseUrl
    return yield* runBrein({ ...databaseEnv(url, yield* tempDataDir), BREIN_AUDIT_KEY: AUDIT_KEY }, ...args)
  }).pipe(Effect.scoped)

// Nothing listens on this port: a command that connects fails with a connection error.
const CLOSED_DATABASE = "postgres://postgres@127.0.0.1:1/postgres"

/** Runs with the embedded database (no DATABASE_URL) in an empty data folder; answers what the folder holds after. */
const withoutDatabase = (...args: Array<string>) =>
  Effect.gen(function* () {
    const dataDir = yield* tempDataDir
    const run = yield* runBrein({ DATABASE_URL: "", BREIN_DATA_DIR: dataDir }, ...args)
    const left = yield* (yield* FileSystem.FileSystem).readDirectory(dataDir)
    return { ...run, left }
  }).pipe(Effect.scoped)

const POOL_SIZE = "BREIN_DB_POOL_SIZE must be a whole number from 1 to 262,143, not"
const CONNECT_TIMEOUT = "BREIN_DB_CONNECT_TIMEOUT_SECONDS must be a number of seconds from 0 (wait without bound) to 86,400 (a day), not"

/** An API key of the issued shape that no database knows: `mcp` gets as far as opening the database with it. */
const UNKNOWN_KEY = `brein_sk_${"a".repeat(32)}`

/** The lines a run wrote as brein's own failure (its logs aside). */
const breinLines = (run: Run) => run.stderr.split("\n").filter((line) => line.startsWith("brein: "))

const manifestVersion = (JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as { version: string }).version

layer(CliTest, { excludeTestServices: true, timeout: "90 seconds" })("brein CLI", (it) => {
  it.effect("--help and -h print the help and start nothing", () =>
    Effect.gen(function* () {
      for (const flag of ["--help", "-h"]) {
        const run = yield* withoutDatabase(flag)
        assert.strictEqual(run.exitCode, 0, run.stderr)
        for (const command of ["serve", "mcp", "keys", "workspaces", "connections", "audit", "--data-dir", "--port"]) {
          assert.include(run.stdout, command)
        }
        assert.deepStrictEqual(run.left, [], "help must not start the embedded database or write anything")
        assert.notInclude(run.stdout, "\x1b[", "no colour codes in a pipe")
      }
      const keysHelp = yield* withoutDatabase("keys", "--help")
      assert.strictEqual(keysHelp.exitCode, 0)
      assert.include(keysHelp.stdout, "revoke")
    }), { timeout: 90_000 })

  it.effect("--version prints package.json's version and starts nothing", () =>
    Effect.gen(function* () {
      const run = yield* withoutDatabase("--version")
      assert.strictEqual(run.exitCode, 0, run.stderr)
      assert.strictEqual(run.stdout.trim(), manifestVersion)
      assert.deepStrictEqual(run.left, [])
    }), { timeout: 90_000 })

  it.effect("an unknown command or option exits 2 and says why, before touching any database", () =>
    Effect.gen(function* () {
      const command = yield* withoutDatabase("frobnicate")
      assert.strictEqual(command.exitCode, 2)
      assert.strictEqual(command.stdout, "")
      assert.include(command.stderr, "Invalid subcommand")
      assert.include(command.stderr, "keys")
      assert.deepStrictEqual(command.left, [])

      const option = yield* withoutDatabase("keys", "list", "--bogus")
      assert.strictEqual(option.exitCode, 2)
      assert.include(option.stderr, "--bogus")
      assert.deepStrictEqual(option.left, [])
    }), { timeout: 90_000 })

  it.effect(
    "a group without its command, a command the group lacks, and a flag without its value exit 2 saying so",
    () =>
      Effect.gen(function* () {
        // the group alone printed its help and exited 0
        const alone = yield* withoutDatabase("keys")
        assert.strictEqual(alone.exitCode, 2, alone.stdout)
        assert.strictEqual(alone.stdout, "")
        assert.include(alone.stderr, "brein keys needs one of its commands:")
        for (const command of ["brein keys create", "brein keys list", "brein keys revoke"]) assert.include(alone.stderr, command)
        assert.deepStrictEqual(alone.left, [])

        // it listed the program's commands, not the group's
        const wrong = yield* withoutDatabase("keys", "frobnicate")
        assert.strictEqual(wrong.exitCode, 2)
        assert.include(wrong.stderr, "Invalid subcommand for keys - use one of 'create', 'list', 'revoke'")
        assert.notInclude(wrong.stderr, "'workspaces'")
        assert.deepStrictEqual(wrong.left, [])

        // it said "unknown argument"
        const missing = yield* withoutDatabase("workspaces", "create", "x", "--plan")
        assert.strictEqual(missing.exitCode, 2)
        assert.include(missing.stderr, "--plan needs a value")
        assert.include(missing.stderr, "brein workspaces create")
        assert.notInclude(missing.stderr, "unknown argument")
        assert.deepStrictEqual(missing.left, [])

        // the program's own flag, without a command: it said "Invalid subcommand for brein"
        const own = yield* withoutDatabase("--port")
        assert.strictEqual(own.exitCode, 2)
        assert.include(own.stderr, "--port needs a value")
        assert.include(own.stderr, "brein [--port PORT]")
        assert.notInclude(own.stderr, "Invalid subcommand")
        assert.deepStrictEqual(own.left, [])
      }),
    { timeout: 90_000 }
  )

  it.effect("--plan gold is refused with exit 2 before any database connection", () =>
    Effect.gen(function* () {
      const dataDir = yield* tempDataDir
      for (const args of [["keys", "create", "--plan", "gold"], ["workspaces", "create", "acme", "--plan", "gold"]]) {
        const run = yield* runBrein({ DATABASE_URL: CLOSED_DATABASE, BREIN_DATA_DIR: dataDir }, ...args)
        assert.strictEqual(run.exitCode, 2)
        assert.strictEqual(run.stdout, "")
        assert.include(run.stderr, `--plan must be free or paid, not "gold"`)
        assert.notMatch(run.stderr, /connect|ECONNREFUSED/i)
      }
    }).pipe(Effect.scoped), { timeout: 90_000 })

  it.effect(
    "a blank or whitespace-only workspace name is refused with exit 2 before any database connection",
    () =>
      Effect.gen(function* () {
        const dataDir = yield* tempDataDir
        for (
          const args of [
            ["keys", "create", "--workspace", ""],
            ["keys", "create", "--workspace", "   "],
            ["keys", "list", "--workspace", "\t"],
            ["workspaces", "create", " "]
          ]
        ) {
          const run = yield* runBrein({ DATABASE_URL: CLOSED_DATABASE, BREIN_DATA_DIR: dataDir }, ...args)
          assert.strictEqual(run.exitCode, 2, run.stderr)
          assert.strictEqual(run.stdout, "")
          assert.include(run.stderr, "a workspace name must not be blank")
          assert.notMatch(run.stderr, /connect|ECONNREFUSED/i)
        }
      }).pipe(Effect.scoped),
    { timeout: 90_000 }
  )

  it.effect(
    "a command that cannot reach its database ends in one line on stderr and exit 1, no stack trace",
    () =>
      Effect.gen(function* () {
        const run = yield* runBrein({ DATABASE_URL: CLOSED_DATABASE, BREIN_DATA_DIR: yield* tempDataDir }, "keys", "list")
        assert.strictEqual(run.exitCode, 1)
        const lines = run.stderr.trim().split("\n")
        assert.strictEqual(lines.length, 1, run.stderr)
        assert.match(lines[0] ?? "", /^brein: .*ECONNREFUSED/)
        assert.notInclude(run.stderr, "    at ")
      }).pipe(Effect.scoped),
    { timeout: 90_000 }
  )

  it.effect(
    "a DATABASE_URL that is not a PostgreSQL URL is refused at start, naming the setting and the form, never its password",
    () =>
      Effect.gen(function* () {
        const expected = (shown: string) =>
          `brein: DATABASE_URL must be a PostgreSQL URL, postgres://user@host:port/database, not ${JSON.stringify(shown)}`
        const every = [["serve"], ["keys", "list"], ["mcp"], ["db", "migrate"]]
        const runs = [
          // pg read it as a path under a placeholder host: getaddrinfo ENOTFOUND base
          { url: "notaurl", says: expected("notaurl"), commands: every },
          { url: "localhost:5432", says: expected("localhost:5432"), commands: [["keys", "list"]] },
          { url: "http://ana:s3cret@127.0.0.1:5432/brein", says: expected("http://ana:***@127.0.0.1:5432/brein"), commands: [["serve"]] },
          { url: "postgres//ana:s3cret@db/brein", says: expected("postgres//ana:***@db/brein"), commands: [["keys", "list"]] },
          { url: "postgres://ana:s3cret@", says: expected("postgres://ana:***@"), commands: [["mcp"]] }
        ]
        for (const { commands, says, url } of runs) {
          for (const args of commands) {
            const dataDir = yield* tempDataDir
            const run = yield* runBrein(
              { DATABASE_URL: url, BREIN_DATA_DIR: dataDir, BREIN_API_KEY: UNKNOWN_KEY, PORT: String(yield* freePort) },
              ...args
            )
            assert.strictEqual(run.exitCode, 1, `${url} ${args.join(" ")}: ${run.stderr}`)
            assert.deepStrictEqual(breinLines(run), [says], `${url} ${args.join(" ")}`)
            assert.notInclude(run.stderr, "s3cret")
            assert.deepStrictEqual(yield* (yield* FileSystem.FileSystem).readDirectory(dataDir), [], "no database was made")
          }
        }
      }).pipe(Effect.scoped),
    { timeout: 90_000 }
  )

  it.effect(
    "a DATABASE_URL where nothing answers ends the command naming the setting and where it points, never its password",
    () =>
      Effect.gen(function* () {
        const runs = [
          {
            url: "postgres://ana:s3cret@127.0.0.1:1/brein",
            says:
              "brein: nothing answers at 127.0.0.1:1, where DATABASE_URL points (connect ECONNREFUSED 127.0.0.1:1): start PostgreSQL there, or set DATABASE_URL to where it runs",
            commands: [["serve"], ["keys", "list"], ["mcp"], ["db", "migrate"]]
          },
          {
            url: "postgresql://ana:s3cret@/brein?host=/nonexistent",
            says:
              "brein: nothing answers at /nonexistent/.s.PGSQL.5432, where DATABASE_URL points (connect ENOENT /nonexistent/.s.PGSQL.5432): start PostgreSQL there, or set DATABASE_URL to where it runs",
            commands: [["keys", "list"]]
          }
        ]
        for (const { commands, says, url } of runs) {
          for (const args of commands) {
            const run = yield* runBrein(
              { DATABASE_URL: url, BREIN_DATA_DIR: yield* tempDataDir, BREIN_API_KEY: UNKNOWN_KEY, PORT: String(yield* freePort) },
              ...args
            )
            assert.strictEqual(run.exitCode, 1, `${url} ${args.join(" ")}: ${run.stderr}`)
            assert.deepStrictEqual(breinLines(run), [says], `${url} ${args.join(" ")}`)
            assert.notInclude(run.stderr, "s3cret")
          }
        }
      }).pipe(Effect.scoped),
    { timeout: 90_000 }
  )

  it.effect(
    "a DATABASE_URL whose host name does not resolve ends the command naming the setting and the host",
    () =>
      Effect.gen(function* () {
        const run = yield* runBrein(
          { DATABASE_URL: "postgres://ana:s3cret@nohost.invalid/brein", BREIN_DATA_DIR: yield* tempDataDir },
          "keys",
          "list"
        )
        assert.strictEqual(run.exitCode, 1, run.stderr)
        const [line, ...more] = breinLines(run)
        assert.deepStrictEqual(more, [])
        // a resolver that cannot be asked answers EAI_AGAIN rather than ENOTFOUND
        assert.match(
          line ?? "",
          /^brein: DATABASE_URL points at nohost\.invalid:5432, and that host name does not resolve \(getaddrinfo (ENOTFOUND|EAI_AGAIN) nohost\.invalid\)$/
        )
        assert.notInclude(run.stderr, "s3cret")
      }).pipe(Effect.scoped),
    { timeout: 90_000 }
  )

  it.effect("keys create prints only the key, and the key authenticates as that paid workspace", () =>
    Effect.gen(function* () {
      const run = yield* brein("keys", "create", "--workspace", "acme", "--plan", "paid")
      assert.strictEqual(run.exitCode, 0, run.stderr)
      const [key, ...rest] = [...Str.linesIterator(run.stdout)]
      assert.deepStrictEqual(rest, [])
      assert.match(key ?? "", /^brein_sk_[A-Za-z0-9_-]+$/)
      const principal = yield* (yield* Workspaces).authenticate(key ?? "")
      assert.deepStrictEqual({ workspace: principal.workspaceName, plan: principal.plan }, { workspace: "acme", plan: "paid" })
      if (process.env["LOG_LEVEL"] === undefined) {
        assert.notInclude(run.stderr, "level=INFO", "operator commands log at Warning unless LOG_LEVEL asks")
      }
    }), { timeout: 90_000 })

  it.effect(
    "keys create says on stderr when it made the workspace or moved it to another plan, and only then",
    () =>
      Effect.gen(function* () {
        const name = `made-${randomBytes(4).toString("hex")}`
        const first = yield* brein("keys", "create", "--workspace", name)
        assert.strictEqual(first.exitCode, 0, first.stderr)
        assert.include(first.stderr, `brein: created workspace "${name}" (plan free): there was none by that name`)
        assert.match(first.stdout.trim(), /^brein_sk_[A-Za-z0-9_-]+$/)
        const second = yield* brein("keys", "create", "--workspace", name)
        assert.strictEqual(second.exitCode, 0, second.stderr)
        assert.notInclude(second.stderr, "created workspace")
        assert.notInclude(second.stderr, "plan")
        const moved = yield* brein("keys", "create", "--workspace", name, "--plan", "paid")
        assert.strictEqual(moved.exitCode, 0, moved.stderr)
        assert.include(moved.stderr, `brein: workspace "${name}" is now on the paid plan (it was on free)`)
        assert.match(moved.stdout.trim(), /^brein_sk_[A-Za-z0-9_-]+$/)
      }),
    { timeout: 90_000 }
  )

  it.effect(
    "keys list shows prefix, workspace, plan, created and last used, never the secret; revoke ends the key",
    () =>
      Effect.gen(function* () {
        const created = yield* brein("keys", "create", "--workspace", "listed", "--plan", "free")
        const key = created.stdout.trim()
        const prefix = key.slice(0, 14)
        yield* (yield* Workspaces).authenticate(key)

        const used = yield* brein("keys", "list", "--workspace", "listed").pipe(
          Effect.filterOrFail((run) => !/\s-$/m.test(run.stdout)),
          Effect.retry({ schedule: Schedule.spaced("100 millis"), times: 50 })
        )
        assert.strictEqual(used.exitCode, 0, used.stderr)
        const [header, row, ...more] = used.stdout.trim().split("\n")
        assert.deepStrictEqual(header?.split(/\s{2,}/), ["PREFIX", "WORKSPACE", "PLAN", "CREATED", "LAST USED"])
        assert.deepStrictEqual(more, [])
        assert.match(
          row ?? "",
          new RegExp(`^${prefix}\\s+listed\\s+free\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\dZ\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\dZ$`)
        )
        assert.notInclude(used.stdout, key.slice(14))

        const longer = yield* brein("keys", "revoke", key.slice(0, 17))
        assert.strictEqual(longer.exitCode, 1, longer.stderr)
        assert.include(longer.stderr, `a prefix is the key's first 14 characters, as \`brein keys list\` shows them ("${prefix}")`)
        assert.notInclude(longer.stderr, key.slice(0, 17), "no more of the key than its prefix is printed")

        const revoked = yield* brein("keys", "revoke", prefix)
        assert.strictEqual(revoked.exitCode, 0, revoked.stderr)
        const refused = yield* (yield* Workspaces).authenticate(key).pipe(Effect.flip)
        assert.strictEqual(refused._tag, "Unauthorized")
        const after = yield* brein("keys", "list", "--workspace", "listed")
        assert.notInclude(after.stdout, prefix)

        const again = yield* brein("keys", "revoke", prefix)
        assert.strictEqual(again.exitCode, 1)
        assert.include(again.stderr, `no active key has the prefix "${prefix}"`)

        // fewer characters name no key, rather than "no key starts with" what every key starts with
        for (const shorter of [prefix.slice(0, 1), ""]) {
          const refused = yield* brein("keys", "revoke", shorter)
          assert.strictEqual(refused.exitCode, 1, shorter)
          assert.include(refused.stderr, `"${shorter}" is no key's prefix: a prefix is the key's first 14 characters`, shorter)
        }
        // what the line quotes from the command line reaches the terminal escaped: no control sequence, one line
        const controls = yield* brein("keys", "revoke", "b\u0001\u001b[2J\u202e\u0085")
        assert.strictEqual(controls.exitCode, 1)
        assert.strictEqual(
          controls.stderr.trim(),
          "brein: \"b\\u0001\\u001b[2J\\u202e\\u0085\" is no key's prefix: a prefix is the key's first 14 characters, as `brein keys list` shows them; give all of them, or the whole key"
        )
      }),
    { timeout: 120_000 }
  )

  it.effect(
    "keys revoke given the whole key revokes it and prints only its prefix; an unknown key is never echoed",
    () =>
      Effect.gen(function* () {
        const created = yield* brein("keys", "create", "--workspace", "revoked-whole", "--plan", "free")
        const key = created.stdout.trim()
        const secret = key.slice(14)
        yield* (yield* Workspaces).authenticate(key)

        const revoked = yield* brein("keys", "revoke", key)
        assert.strictEqual(revoked.exitCode, 0, revoked.stderr)
        assert.include(revoked.stdout, `revoked ${key.slice(0, 14)}:`, "the answer is on stdout, as every operator command's")
        assert.notInclude(revoked.stdout + revoked.stderr, secret)
        const refused = yield* (yield* Workspaces).authenticate(key).pipe(Effect.flip)
        assert.strictEqual(refused._tag, "Unauthorized")

        for (const given of [key, `${key.slice(0, -1)}x`, key.slice(0, -1)]) {
          const again = yield* brein("keys", "revoke", given)
          assert.strictEqual(again.exitCode, 1, given)
          assert.include(again.stderr, key.slice(0, 14))
          assert.notInclude(again.stdout + again.stderr, secret.slice(0, -1))
        }
      }),
    { timeout: 120_000 }
  )

  it.effect("creating and revoking a key leave audit rows in the workspace's chain, never the key", () =>
    Effect.gen(function* () {
      const created = yield* brein("keys", "create", "--workspace", "audited-keys", "--plan", "free")
      assert.strictEqual(created.exitCode, 0, created.stderr)
      const key = created.stdout.trim()
      const revoked = yield* brein("keys", "revoke", key.slice(0, 14))
      assert.strictEqual(revoked.exitCode, 0, revoked.stderr)
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ chain: string; seq: number; toolId: string; principal: string; whole: string }>`
        SELECT a.chain, a.seq::int AS seq, a.tool_id, a.principal, a::text AS whole FROM audit_log a
        JOIN workspaces w ON w.id = a.chain WHERE w.name = 'audited-keys' ORDER BY a.seq`
      assert.deepStrictEqual(rows.map((r) => [r.seq, r.toolId, r.principal]), [[1, "keys.create", "operator:cli"], [
        2,
        "keys.revoke",
        "operator:cli"
      ]])
      for (const row of rows) assert.notInclude(row.whole, key.slice(14))
      const verify = yield* brein("audit", "verify")
      assert.strictEqual(verify.exitCode, 0, verify.stdout)
    }), { timeout: 120_000 })

  it.effect("workspaces create and list; creating a taken name fails with exit 1", () =>
    Effect.gen(function* () {
      const created = yield* brein("workspaces", "create", "northwind", "--plan", "paid")
      assert.strictEqual(created.exitCode, 0, created.stderr)
      assert.include(created.stdout, `created workspace "northwind" (plan paid)`, "the answer is on stdout, as every operator command's")
      const listed = yield* brein("workspaces", "list")
      assert.strictEqual(listed.exitCode, 0, listed.stderr)
      assert.match(listed.stdout, /^NAME\s+PLAN\s+KEYS\s+CONNECTIONS\s+CREATED$/m)
      assert.match(listed.stdout, /^northwind\s+paid\s+0\s+0\s+/m)
      const taken = yield* brein("workspaces", "create", "northwind", "--plan", "free")
      assert.strictEqual(taken.exitCode, 1)
      assert.include(taken.stderr, `a workspace named "northwind" already exists`)
    }), { timeout: 60_000 })

  it.effect(
    "workspaces create refuses a name that begins with \"-\": a flag without its value made a workspace named after it",
    () =>
      Effect.gen(function* () {
        const missingValue = yield* brein("workspaces", "create", "--plan")
        assert.strictEqual(missingValue.exitCode, 2, missingValue.stdout)
        const dashed = yield* brein("workspaces", "create", "--", "-x")
        assert.strictEqual(dashed.exitCode, 2, dashed.stdout)
        assert.include(dashed.stderr, `NAME must not begin with "-", which reads as an option (got "-x")`)
        const listed = yield* brein("workspaces", "list")
        assert.notMatch(listed.stdout, /^(--plan|-x)\s/m, "no workspace was created")
      }),
    { timeout: 60_000 }
  )

  it.effect("connections list shows each connection's state, never its credentials", () =>
    Effect.gen(function* () {
      const principal = yield* (yield* Workspaces).inProcess("holder", "paid")
      const sql = yield* SqlClient.SqlClient
      yield* sql`INSERT INTO connections (id, workspace_id, connector, institution, credentials, state, state_reason)
                 VALUES ('conn_clilisted', ${principal.workspaceId}, 'banco', 'bci', 'sealed-secret-bytes', 'error', 'credenciales_invalidas')`
      const run = yield* brein("connections", "list", "--workspace", "holder")
      assert.strictEqual(run.exitCode, 0, run.stderr)
      assert.match(run.stdout, /^ID\s+WORKSPACE\s+CONNECTOR\s+INSTITUTION\s+STATE\s+REASON\s+CREATED$/m)
      assert.match(run.stdout, /^conn_clilisted\s+holder\s+banco\s+bci\s+error\s+credenciales_invalidas\s+\d{4}-/m)
      assert.notInclude(run.stdout, "sealed-secret-bytes")
      const unknown = yield* brein("connections", "list", "--workspace", "nobody-here")
      assert.strictEqual(unknown.exitCode, 1, unknown.stderr)
      assert.include(unknown.stderr, `no workspace named "nobody-here" (brein workspaces list shows them)`)
    }), { timeout: 60_000 })

  // /health's first answer on `port`, asked again only while nothing listens there and the server runs. The first
  // answer must be 200: a request that comes while the server starts waits for its app (NodeBridge); a 503 here was
  // once a start-up read as an outage. What the server wrote is logged when no answer comes.
  const healthOn = (port: number, server: Fiber.RuntimeFiber<Run, unknown>) =>
    Effect.tryPromise(() => fetch(`http://127.0.0.1:${port}/health`)).pipe(
      Effect.retry({
        schedule: Schedule.spaced("200 millis"),
        times: 200,
        while: () => Effect.map(server.poll, (exit) => exit._tag === "None")
      }),
      Effect.onError((cause) => Effect.flatMap(server.poll, (exit) => Effect.logError("no answer from /health", cause, exit)))
    )

  it.effect("serve --port listens on that port, over the environment's PORT", () =>
    Effect.gen(function* () {
      const url = yield* CliDatabaseUrl
      const [port, other] = [yield* freePort, yield* freePort]
      const server = yield* runBrein(
        { ...databaseEnv(url, yield* tempDataDir), BREIN_AUDIT_KEY: AUDIT_KEY, PORT: String(other) },
        "serve",
        "--port",
        String(port)
      )
        .pipe(
          Effect.fork
        )
      assert.strictEqual((yield* healthOn(port, server)).status, 200)
    }).pipe(Effect.scoped), { timeout: 90_000 })

  it.effect(
    "an operator command logs at Warning, or at the level --log-level asks for; a database it had to make is said at Warning",
    () =>
      Effect.gen(function* () {
        const dataDir = yield* tempDataDir
        const env = { DATABASE_URL: "", BREIN_DATA_DIR: dataDir }
        const made =
          `there was no database in ${dataDir}/pg, so a new, empty one was made (if one was expected there, check BREIN_DATA_DIR or --data-dir)`
        const asked = yield* runBrein(env, "workspaces", "list", "--log-level", "debug")
        assert.strictEqual(asked.exitCode, 0, asked.stderr)
        assert.include(asked.stderr, "level=DEBUG", "the embedded database's own lines, logged at Debug")
        assert.include(asked.stderr, made)
        // a mistyped folder shows even where only warnings are logged; an existing database is not announced
        const first = yield* runBrein({ DATABASE_URL: "", BREIN_DATA_DIR: yield* tempDataDir, LOG_LEVEL: "Warning" }, "workspaces", "list")
        assert.strictEqual(first.exitCode, 0, first.stderr)
        assert.include(first.stderr, "level=WARN")
        assert.include(first.stderr, "so a new, empty one was made")
        const again = yield* runBrein(env, "workspaces", "list")
        assert.strictEqual(again.exitCode, 0, again.stderr)
        assert.notInclude(again.stderr, "a new, empty one")
        if (process.env["LOG_LEVEL"] === undefined) assert.notMatch(again.stderr, /level=(DEBUG|INFO)/)
        // after a nested command's own options too, which @effect/cli alone refused as an unknown argument
        for (const flag of [["--log-level", "info"], ["--log-level=info"]]) {
          const created = yield* runBrein(env, "keys", "create", "--workspace", "logged", ...flag)
          assert.strictEqual(created.exitCode, 0, created.stderr)
          assert.include(created.stderr, "level=INFO", flag.join(" "))
        }
      }).pipe(Effect.scoped),
    { timeout: 90_000 }
  )

  it.effect("a port that is not 1 to 65535 ends serve before anything starts: no database, no server", () =>
    Effect.gen(function* () {
      const runs = [
        { env: {}, args: ["serve", "--port", "99999"], says: `--port must be an integer from 1 to 65535, not "99999"`, code: 2 },
        { env: {}, args: ["--port", "0"], says: `--port must be an integer from 1 to 65535, not "0"`, code: 2 },
        { env: {}, args: ["serve", "--port", "1e3"], says: `--port must be an integer from 1 to 65535, not "1e3"`, code: 2 },
        { env: { PORT: "0x1007" }, args: ["serve"], says: `brein: PORT must be an integer from 1 to 65535, not "0x1007"`, code: 1 },
        { env: { PORT: "abc" }, args: ["serve"], says: `brein: PORT must be an integer from 1 to 65535, not "abc"`, code: 1 },
        { env: { PORT: "70000" }, args: [], says: `brein: PORT must be an integer from 1 to 65535, not "70000"`, code: 1 }
      ]
      for (const { args, code, env, says } of runs) {
        const dataDir = yield* tempDataDir
        const run = yield* runBrein({ DATABASE_URL: "", BREIN_DATA_DIR: dataDir, LOG_LEVEL: "Info", ...env }, ...args)
        assert.strictEqual(run.exitCode, code, run.stderr)
        assert.include(run.stderr, says)
        assert.notMatch(run.stderr, /postgres|listening|migrat/i)
        assert.deepStrictEqual(yield* (yield* FileSystem.FileSystem).readDirectory(dataDir), [], "no database was made")
      }
    }).pipe(Effect.scoped), { timeout: 90_000 })

  it.scoped(
    "a port another program listens on ends serve before anything starts, naming the port: no database, no server",
    () =>
      Effect.gen(function* () {
        const taken = yield* heldPort
        for (const { args, env } of [{ args: ["serve", "--port", String(taken)], env: {} }, { args: [], env: { PORT: String(taken) } }]) {
          const dataDir = yield* tempDataDir
          const run = yield* runBrein({ DATABASE_URL: "", BREIN_DATA_DIR: dataDir, LOG_LEVEL: "Info", ...env }, ...args)
          assert.strictEqual(run.exitCode, 1, run.stderr)
          assert.include(
            run.stderr,
            `brein: port ${taken} is in use (another brein, or another program, listens on it): stop that one, or serve on another port with --port or PORT`
          )
          assert.notMatch(run.stderr, /postgres|listening|migrat/i)
          assert.deepStrictEqual(yield* (yield* FileSystem.FileSystem).readDirectory(dataDir), [], "no database was made")
        }
      }),
    { timeout: 90_000 }
  )

  it.effect(
    "a database or rate-limit setting that is not what it must be ends serve (or db migrate) before the embedded database is made",
    () =>
      Effect.gen(function* () {
        const runs = [
          { env: { BREIN_DB_POOL_SIZE: "0" }, args: ["serve"], says: `brein: ${POOL_SIZE} "0"` },
          { env: { BREIN_DB_POOL_SIZE: "abc" }, args: ["db", "migrate"], says: `brein: ${POOL_SIZE} "abc"` },
          { env: { BREIN_DB_CONNECT_TIMEOUT_SECONDS: "soon" }, args: ["db", "migrate"], says: `brein: ${CONNECT_TIMEOUT} "soon"` },
          { env: { BREIN_RATE_LIMIT_KEY: "lots" }, args: ["serve"], says: `brein: BREIN_RATE_LIMIT_KEY: "lots" is not a rate limit` },
          {
            env: { BREIN_PG_PORT: "70000" },
            args: ["db", "migrate"],
            says: `brein: BREIN_PG_PORT must be a port from 0 (any free port) to 65,535, not "70000"`
          }
        ]
        for (const { args, env, says } of runs) {
          const dataDir = yield* tempDataDir
          const run = yield* runBrein({
            DATABASE_URL: "",
            BREIN_DATA_DIR: dataDir,
            LOG_LEVEL: "Info",
            PORT: String(yield* freePort),
            ...env
          }, ...args)
          assert.strictEqual(run.exitCode, 1, run.stderr)
          assert.include(run.stderr, says)
          assert.notMatch(run.stderr, /postgres|listening|migrat/i)
          assert.deepStrictEqual(yield* (yield* FileSystem.FileSystem).readDirectory(dataDir), [], "no database was made")
        }
      }).pipe(Effect.scoped),
    { timeout: 90_000 }
  )

  it.effect("a setting that is not what it must be ends serve, naming the setting", () =>
    Effect.gen(function* () {
      const url = yield* CliDatabaseUrl
      const runs = [
        { env: { BREIN_DB_CONNECT_TIMEOUT_SECONDS: "abc" }, says: `brein: ${CONNECT_TIMEOUT} "abc"` },
        { env: { BREIN_DB_CONNECT_TIMEOUT_SECONDS: "-1" }, says: `brein: ${CONNECT_TIMEOUT} "-1"` },
        // past 24.8 days Node's timer fired at once: every connection attempt timed out
        { env: { BREIN_DB_CONNECT_TIMEOUT_SECONDS: "3000000" }, says: `brein: ${CONNECT_TIMEOUT} "3000000"` },
        { env: { BREIN_DB_POOL_SIZE: "0" }, says: `brein: ${POOL_SIZE} "0"` },
        { env: { BREIN_DB_POOL_SIZE: "abc" }, says: `brein: ${POOL_SIZE} "abc"` },
        { env: { BREIN_DB_POOL_SIZE: "1e2" }, says: `brein: ${POOL_SIZE} "1e2"` },
        { env: { BREIN_SYNC_CONCURRENCY: "x" }, says: `brein: BREIN_SYNC_CONCURRENCY must be a whole number, 1 or more, not "x"` },
        // 0 made the checkpoint loop spin: serve never listened nor stopped on a signal
        {
          env: { BREIN_AUDIT_CHECKPOINT_MS: "0" },
          says: `brein: BREIN_AUDIT_CHECKPOINT_MS must be a whole number of milliseconds, 10 or more, not "0"`
        },
        {
          env: { BREIN_AUDIT_CHECKPOINT_MS: "abc" },
          says: `brein: BREIN_AUDIT_CHECKPOINT_MS must be a whole number of milliseconds, 10 or more, not "abc"`
        },
        {
          env: { BREIN_SHUTDOWN_GRACE_MS: "soon" },
          says: `brein: BREIN_SHUTDOWN_GRACE_MS must be a whole number of milliseconds, 0 or more, not "soon"`
        },
        {
          env: { BREIN_DISPATCHER_POLL_SECONDS: "x" },
          says: `brein: BREIN_DISPATCHER_POLL_SECONDS must be a whole number of seconds, 1 or more, not "x"`
        },
        {
          env: { BREIN_DISPATCHER_LEASE_SECONDS: "44" },
          says: `brein: BREIN_DISPATCHER_LEASE_SECONDS must be a whole number of seconds, 45 or more, not "44"`
        },
        {
          env: { BREIN_OPENING_CREDITS_FREE: "x" },
          says: `brein: BREIN_OPENING_CREDITS_FREE must be a whole number from 0 to 1,000,000,000 (the most a balance holds), not "x"`
        }
      ]
      for (const { env, says } of runs) {
        const run = yield* runBrein({
          ...databaseEnv(url, yield* tempDataDir),
          BREIN_AUDIT_KEY: AUDIT_KEY,
          PORT: String(yield* freePort),
          ...env
        }, "serve")
        assert.strictEqual(run.exitCode, 1, run.stderr)
        assert.deepStrictEqual(breinLines(run), [says], run.stderr)
        assert.notMatch(run.stderr, /listening/i)
      }
    }).pipe(Effect.scoped), { timeout: 90_000 })

  it.effect(
    "a number setting without a declared range before is refused at start, naming the setting, the value and the range",
    () =>
      Effect.gen(function* () {
        const url = yield* CliDatabaseUrl
        const seconds = "a number of seconds more than 0 and at most 86,400"
        const runs = [
          // 0 started a worker that never claims a job
          { env: { BREIN_SYNC_CONCURRENCY: "0" }, says: `BREIN_SYNC_CONCURRENCY must be a whole number, 1 or more, not "0"` },
          { env: { BREIN_SYNC_LEASE_SECONDS: "0" }, says: `BREIN_SYNC_LEASE_SECONDS must be ${seconds}, not "0"` },
          {
            env: { BREIN_SYNC_MAX_ATTEMPTS: "0" },
            says: `BREIN_SYNC_MAX_ATTEMPTS must be a whole number from 1 to 2,147,483,647, not "0"`
          },
          {
            env: { BREIN_SYNC_POLL_MS: "-5" },
            says: `BREIN_SYNC_POLL_MS must be a whole number of milliseconds from 10 to 86,400,000, not "-5"`
          },
          { env: { BREIN_SESSION_LEASE_SECONDS: "abc" }, says: `BREIN_SESSION_LEASE_SECONDS must be ${seconds}, not "abc"` },
          { env: { BREIN_SESSION_LEASE_RENEW_SECONDS: "0" }, says: `BREIN_SESSION_LEASE_RENEW_SECONDS must be ${seconds}, not "0"` },
          {
            env: { BREIN_SESSION_LEASE_SECONDS: "30", BREIN_SESSION_LEASE_RENEW_SECONDS: "20" },
            says: `BREIN_SESSION_LEASE_RENEW_SECONDS must be less than half of BREIN_SESSION_LEASE_SECONDS (30), not "20"`
          },
          {
            env: { BREIN_READS_PER_HOUR_FREE: "0" },
            says: `BREIN_READS_PER_HOUR_FREE must be a whole number from 1 to 2,147,483,647, not "0"`
          },
          {
            env: { BREIN_READS_PER_HOUR_PAID: "1e3" },
            says: `BREIN_READS_PER_HOUR_PAID must be a whole number from 1 to 2,147,483,647, not "1e3"`
          },
          { env: { BREIN_SIGNALS_CHECK_SECONDS: "0" }, says: `BREIN_SIGNALS_CHECK_SECONDS must be ${seconds}, not "0"` },
          { env: { UPSTREAM_TIME_SCALE: "-1" }, says: `UPSTREAM_TIME_SCALE must be a number, 0 or more, not "-1"` },
          { env: { CRM_SIMULATOR_RATE: "0" }, says: `CRM_SIMULATOR_RATE must be a whole number, 1 or more, not "0"` },
          { env: { MAIL_SIMULATOR_BOUNCE_RATE: "2" }, says: `MAIL_SIMULATOR_BOUNCE_RATE must be a number from 0 to 1, not "2"` },
          {
            env: { OTEL_BSP_SCHEDULE_DELAY: "0" },
            says: `OTEL_BSP_SCHEDULE_DELAY must be a whole number of milliseconds from 1 to 86,400,000, not "0"`
          },
          {
            env: { LUNA_MODEL_TIMEOUT: "soon" },
            says: `LUNA_MODEL_TIMEOUT must be a duration such as "90 seconds", longer than 0 and a day at most, not "soon"`
          }
        ]
        for (const { env, says } of runs) {
          const run = yield* runBrein({
            ...databaseEnv(url, yield* tempDataDir),
            BREIN_AUDIT_KEY: AUDIT_KEY,
            PORT: String(yield* freePort),
            ...env
          }, "serve")
          assert.strictEqual(run.exitCode, 1, run.stderr)
          assert.deepStrictEqual(breinLines(run), [`brein: ${says}`], run.stderr)
          assert.notMatch(run.stderr, /listening/i)
        }
      }).pipe(Effect.scoped),
    { timeout: 240_000 }
  )

  // an empty path started PostgreSQL in /pg, at the filesystem's root, whatever the current folder
  it.effect(
    "an empty data folder is refused before anything starts: --data-dir as a wrong command line, BREIN_DATA_DIR as a setting",
    () =>
      Effect.gen(function* () {
        const fs = yield* FileSystem.FileSystem
        const rootPgBefore = yield* fs.exists("/pg")
        for (const dataDir of ["", "  "]) {
          const flag = yield* runBrein({ DATABASE_URL: "", BREIN_DATA_DIR: yield* tempDataDir }, "keys", "list", "--data-dir", dataDir)
          assert.strictEqual(flag.exitCode, 2, flag.stderr)
          assert.strictEqual(flag.stderr.trim(), "--data-dir must name a folder, not be empty (unset, it is .brein)")
          for (const command of [["keys", "list"], ["serve"]]) {
            const env = yield* runBrein({ DATABASE_URL: "", BREIN_DATA_DIR: dataDir, PORT: String(yield* freePort) }, ...command)
            assert.strictEqual(env.exitCode, 1, env.stderr)
            assert.strictEqual(env.stderr.trim(), "brein: BREIN_DATA_DIR must name a folder, not be empty (unset, it is .brein)")
          }
        }
        assert.strictEqual(yield* fs.exists("/pg"), rootPgBefore, "nothing made at the filesystem's root")
      }).pipe(Effect.scoped),
    { timeout: 90_000 }
  )

  it.effect("no command at all serves, on the environment's PORT", () =>
    Effect.gen(function* () {
      const url = yield* CliDatabaseUrl
      const port = yield* freePort
      const server = yield* runBrein({ ...databaseEnv(url, yield* tempDataDir), BREIN_AUDIT_KEY: AUDIT_KEY, PORT: String(port) }).pipe(
        Effect.fork
      )
      assert.strictEqual((yield* healthOn(port, server)).status, 200)
    }).pipe(Effect.scoped), { timeout: 90_000 })

  it.effect("audit verify says one row in one chain in the singular", () =>
    Effect.gen(function* () {
      const url = yield* freshDatabase
      const env = { ...databaseEnv(url, yield* tempDataDir), BREIN_AUDIT_KEY: AUDIT_KEY }
      const created = yield* runBrein(env, "keys", "create", "--workspace", "alone")
      assert.strictEqual(created.exitCode, 0, created.stderr)
      const verify = yield* runBrein(env, "audit", "verify")
      assert.strictEqual(verify.exitCode, 0, verify.stderr)
      assert.strictEqual(
        verify.stdout.trim(),
        "audit chain intact: 1 row in 1 chain; no signed checkpoints yet; no witness outside the database; 1 row after the last checkpoint not yet covered"
      )
    }).pipe(Effect.scoped), { timeout: 90_000 })

  it.effect("audit verify exits 0 on an intact chain and 1 naming the first tampered row", () =>
    Effect.gen(function* () {
      const principal = yield* (yield* Workspaces).inProcess("ledger")
      const executor = yield* Executor
      const responses = yield* Effect.forEach(["one", "two", "three"], (message) =>
        executor.call("echo.message.reflect", { message }, { surface: "library", principal }))
      const intact = yield* brein("audit", "verify")
      assert.strictEqual(intact.exitCode, 0, intact.stderr)
      assert.match(
        intact.stdout,
        /intact: \d+ rows? in \d+ chains?; (no signed checkpoints yet|\d+ signed checkpoints?, signatures verified); no witness outside the database; \d+ rows? after the last checkpoint not yet covered/
      )

      const first = responses[0]
      const receipt = yield* brein("audit", "verify", "--receipt", `${first?.meta.request_id}:${first?.meta.receipt?.digest}`)
      assert.strictEqual(receipt.exitCode, 0, receipt.stderr)
      assert.include(receipt.stdout, `receipt ${first?.meta.request_id}: recorded at chain ${principal.workspaceId} seq 1`)
      const forged = yield* brein("audit", "verify", "--receipt", `${first?.meta.request_id}:${"a".repeat(64)}`)
      assert.strictEqual(forged.exitCode, 1, forged.stderr)
      assert.include(forged.stdout, "DIFFERS")
      const malformed = yield* brein("audit", "verify", "--receipt", "nodigest")
      assert.strictEqual(malformed.exitCode, 2)
      assert.include(malformed.stderr, "REQUEST_ID:DIGEST")

      const tampered = responses[1]?.meta.request_id ?? ""
      const sql = yield* SqlClient.SqlClient
      yield* sql.withTransaction(Effect.zipRight(
        sql`SET LOCAL session_replication_role = replica`,
        sql`UPDATE audit_log SET output_digest = ${"0".repeat(64)} WHERE request_id = ${tampered}`
      ))
      const broken = yield* brein("audit", "verify")
      assert.strictEqual(broken.exitCode, 1, broken.stderr)
      assert.include(broken.stdout, `seq 2 (request ${tampered})`)
      assert.include(broken.stdout, "digest_mismatch")
    }), { timeout: 90_000 })
})
