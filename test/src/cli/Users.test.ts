import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { ConfigProvider, Context, Effect, Layer, Redacted, String as Str } from "effect"
import { randomBytes } from "node:crypto"
import { ServicesLive } from "../../../layers/App.ts"
import { databaseFromUrl } from "../../../layers/Database.ts"
import { Users } from "../../../services/humans/Users.ts"
import { Workspaces } from "../../../services/workspace/Workspaces.ts"
import { freshDatabase } from "../../support/TestDatabase.ts"
import { databaseEnv, runBrein, tempDataDir } from "./Brein.ts"

class CliDatabaseUrl extends Context.Tag("test/cli/UsersDatabaseUrl")<CliDatabaseUrl, Redacted.Redacted<string>>() {}

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

const PUBLIC_URL = "https://brein.acme.test"
// Nothing listens on this port: a command that connects fails with a connection error.
const CLOSED_DATABASE = "postgres://postgres@127.0.0.1:1/postgres"

const brein = (...args: Array<string>) =>
  Effect.gen(function* () {
    const url = yield* CliDatabaseUrl
    const env = { ...databaseEnv(url, yield* tempDataDir), BREIN_AUDIT_KEY: AUDIT_KEY, BREIN_PUBLIC_URL: PUBLIC_URL }
    return yield* runBrein(env, ...args)
  }).pipe(Effect.scoped)

layer(CliTest, { excludeTestServices: true })("brein users", (it) => {
  it.effect(
    "create prints one sign-in link that opens one session; link prints a new one; list shows the person",
    () =>
      Effect.gen(function* () {
        yield* Effect.orDie((yield* Workspaces).create("acme", "paid"))
        const created = yield* brein("users", "create", "--workspace", "acme", "--email", "Ana@Acme.cl")
        assert.strictEqual(created.exitCode, 0, created.stderr)
        const lines = [...Str.linesIterator(created.stdout)]
        assert.lengthOf(lines, 1)
        assert.match(lines[0] ?? "", /^https:\/\/brein\.acme\.test\/auth\/sign-in\?token=[A-Za-z0-9_-]{43}$/)
        assert.include(created.stderr, "created user ana@acme.cl")

        const users = yield* Users
        const token = new URL(lines[0] ?? "").searchParams.get("token") ?? ""
        const opened = yield* users.signIn(token)
        assert.strictEqual(opened.human.email, "ana@acme.cl")
        assert.strictEqual((yield* Effect.flip(users.signIn(token)))._tag, "SignInLinkRefused")

        const again = yield* brein("users", "create", "--workspace", "acme", "--email", "ana@acme.cl")
        assert.include(again.stderr, "already exists")
        const link = yield* brein("users", "link", "--workspace", "acme", "--email", "ana@acme.cl")
        assert.strictEqual(link.exitCode, 0, link.stderr)
        assert.notStrictEqual(link.stdout.trim(), lines[0])
        yield* users.signIn(new URL(link.stdout.trim()).searchParams.get("token") ?? "")

        const list = yield* brein("users", "list", "--workspace", "acme")
        assert.match(list.stdout, /ana@acme\.cl\s+\S+ \S+\s+2\s/)
      }),
    { timeout: 90_000 }
  )

  it.effect(
    "disable ends the person's session and refuses them a link; enable lets a new link sign them in; each change is audited once",
    () =>
      Effect.gen(function* () {
        yield* Effect.orDie((yield* Workspaces).create("gamma", "paid"))
        const created = yield* brein("users", "create", "--workspace", "gamma", "--email", "eva@gamma.cl")
        assert.strictEqual(created.exitCode, 0, created.stderr)
        const users = yield* Users
        const opened = yield* users.signIn(new URL(created.stdout.trim()).searchParams.get("token") ?? "")

        const disabled = yield* brein("users", "disable", "--workspace", "gamma", "--email", "EVA@gamma.cl")
        assert.strictEqual(disabled.exitCode, 0, disabled.stderr)
        assert.include(disabled.stderr, "disabled eva@gamma.cl: 1 open session ended")
        assert.strictEqual((yield* Effect.flip(users.resolve(Redacted.value(opened.token))))._tag, "SessionRequired")
        const again = yield* brein("users", "disable", "--workspace", "gamma", "--email", "eva@gamma.cl")
        assert.strictEqual(again.exitCode, 0, again.stderr)
        assert.include(again.stderr, "was already disabled")

        for (const command of ["link", "create"]) {
          const refused = yield* brein("users", command, "--workspace", "gamma", "--email", "eva@gamma.cl")
          assert.strictEqual(refused.exitCode, 1, `${command}: ${refused.stderr}`)
          assert.strictEqual(refused.stdout, "")
          assert.include(refused.stderr, "eva@gamma.cl is disabled")
        }
        const list = yield* brein("users", "list", "--workspace", "gamma")
        assert.match(list.stdout, /eva@gamma\.cl\s+\S+ \S+\s+0\s+\S+ \S+\s+\S+ \S+/)

        const enabled = yield* brein("users", "enable", "--workspace", "gamma", "--email", "eva@gamma.cl")
        assert.strictEqual(enabled.exitCode, 0, enabled.stderr)
        assert.include(enabled.stderr, "enabled eva@gamma.cl")
        const link = yield* brein("users", "link", "--workspace", "gamma", "--email", "eva@gamma.cl")
        assert.strictEqual(link.exitCode, 0, link.stderr)
        yield* users.signIn(new URL(link.stdout.trim()).searchParams.get("token") ?? "")
        const notDisabled = yield* brein("users", "enable", "--workspace", "gamma", "--email", "eva@gamma.cl")
        assert.include(notDisabled.stderr, "was not disabled")

        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ toolId: string; principal: string }>`SELECT a.tool_id, a.principal FROM audit_log a
          JOIN workspaces w ON w.id = a.chain WHERE w.name = 'gamma' AND a.tool_id IN ('users.disable', 'users.enable') ORDER BY a.seq`
        assert.deepStrictEqual(rows.map((r) => [r.toolId, r.principal]), [["users.disable", "operator:cli"], [
          "users.enable",
          "operator:cli"
        ]])
      }),
    { timeout: 120_000 }
  )

  it.effect("an unknown person or workspace: exit 1 with one line saying why", () =>
    Effect.gen(function* () {
      yield* Effect.orDie((yield* Workspaces).create("beta", "free"))
      const cases = [
        [["users", "link", "--workspace", "beta", "--email", "nadie@beta.cl"], "no user nadie@beta.cl"],
        [
          ["users", "create", "--workspace", "nowhere", "--email", "ana@acme.cl"],
          "no workspace named \"nowhere\" (brein workspaces list shows them)"
        ],
        // every command that names a workspace says so alike
        [["users", "list", "--workspace", "nowhere"], "brein: no workspace named \"nowhere\" (brein workspaces list shows them)"],
        [["keys", "list", "--workspace", "nowhere"], "brein: no workspace named \"nowhere\" (brein workspaces list shows them)"]
      ] as const
      for (const [args, why] of cases) {
        const run = yield* brein(...args)
        assert.strictEqual(run.exitCode, 1, run.stderr)
        assert.strictEqual(run.stdout, "")
        assert.include(run.stderr, why)
      }
    }), { timeout: 90_000 })

  it.effect(
    "a bad email is a command-line error: exit 2 naming the problem, before any database connection",
    () =>
      Effect.gen(function* () {
        const dataDir = yield* tempDataDir
        const cases = [
          ["create", "not-an-email", "--email must be an email address like ana@example.com"],
          ["link", "ana@", "--email must be an email address like ana@example.com"],
          ["disable", "", "--email must be an email address like ana@example.com"],
          ["enable", `${"a".repeat(250)}@acme.cl`, "--email must be at most 254 characters"]
        ] as const
        for (const [command, email, why] of cases) {
          const run = yield* runBrein(
            { DATABASE_URL: CLOSED_DATABASE, BREIN_DATA_DIR: dataDir },
            "users",
            command,
            "--workspace",
            "beta",
            "--email",
            email
          )
          assert.strictEqual(run.exitCode, 2, `${command}: ${run.stderr}`)
          assert.strictEqual(run.stdout, "")
          assert.strictEqual(run.stderr.trim(), why)
        }
      }).pipe(Effect.scoped),
    { timeout: 90_000 }
  )
})
