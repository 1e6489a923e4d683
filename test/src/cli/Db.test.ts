import { Reactivity } from "@effect/experimental"
import { NodeContext } from "@effect/platform-node"
import { PgClient } from "@effect/sql-pg"
import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Layer, Option, Redacted } from "effect"
import { inject } from "vitest"
import { databaseFromUrl } from "../../../layers/Database.ts"
import { known, migrationName } from "../../../layers/Migrations.ts"
import { sqlState } from "../../../services/Database.ts"
import { allFinished, countRows, execute, rut, siiConnection, simulatedServices, waitForJobs } from "../../support/Connected.ts"
import { migratedBefore } from "../../support/MigrateTo.ts"
import { monthsAgo } from "../../support/Periods.ts"
import { freshRole, ownedDatabase } from "../../support/TestDatabase.ts"
import { issuePrincipal } from "../../support/TestLayers.ts"
import { databaseEnv, runBrein, tempDataDir } from "./Brein.ts"

const brein = (url: Redacted.Redacted<string>, ...args: Array<string>) =>
  Effect.flatMap(tempDataDir, (dataDir) => runBrein(databaseEnv(url, dataDir), ...args)).pipe(Effect.scoped)

const client = (url: Redacted.Redacted<string>) => PgClient.make({ url, maxConnections: 1 }).pipe(Effect.provide(Reactivity.layer))

/** What a statement run as the role of `url` ended with: "ok" or its SQLSTATE. */
const attempt = (url: Redacted.Redacted<string>, statement: string) =>
  Effect.scoped(Effect.flatMap(client(url), (sql) => Effect.exit(sql.unsafe(statement)))).pipe(
    Effect.map((exit) =>
      Exit.isSuccess(exit)
        ? "ok"
        : Option.getOrElse(Option.flatMap(Cause.failureOption(exit.cause), (e) => Option.fromNullable(sqlState(e))), () => "?")
    )
  )

const LATEST = migrationName(known[known.length - 1] ?? [0, "none"])

/** The migration that began the record of service roles (`service_roles`): a database before it holds none. */
const RECORDED_FROM = "0026_service_roles"

describe("brein db migrate", () => {
  it.scopedLive("as the owner, --service-role lets that role run the service and nothing more", () =>
    Effect.gen(function* () {
      const database = yield* ownedDatabase
      const first = yield* brein(database.ownerUrl, "db", "migrate", "--service-role", database.service.name)
      assert.strictEqual(first.exitCode, 0, first.stderr)
      assert.include(first.stdout, `applied ${known.length} migrations`)
      assert.include(first.stdout, `granted "${database.service.name}"`)
      assert.include(first.stdout, "audit_log: no UPDATE, DELETE, TRUNCATE")
      assert.include(first.stdout, "topic_versions: no UPDATE")
      const again = yield* brein(database.ownerUrl, "db", "migrate", "--service-role", database.service.name)
      assert.strictEqual(again.exitCode, 0, again.stderr)
      assert.include(again.stdout, `no migrations pending (the newest this version holds: ${LATEST})`)

      // The service, as that role: a sync writes the cache (its ids come from a sequence), and every call is audited.
      const services = yield* Layer.build(simulatedServices().pipe(Layer.provideMerge(databaseFromUrl(database.serviceUrl))))
      const synced = yield* Effect.gen(function* () {
        const { principal } = yield* issuePrincipal("paid")
        const connection = yield* siiConnection(principal, rut(76600001))
        const periodo = yield* monthsAgo(1)
        yield* execute(principal, "sii.conexion.sincronizar", { periodo, esperar: 0 }, connection.id)
        const jobs = yield* waitForJobs(connection.id, allFinished)
        return { jobs: jobs.map((job) => job.state), documents: yield* countRows("rcv_documents", connection.id) }
      }).pipe(Effect.provide(services))
      assert.deepStrictEqual(synced.jobs, ["sincronizada", "sincronizada"])
      assert.isAbove(synced.documents, 0)

      // What the triggers refuse, the privileges refuse first (42501); the migrations' record and the schema are the owner's.
      const refused = yield* Effect.all([
        attempt(database.serviceUrl, "UPDATE audit_log SET tool_id = tool_id"),
        attempt(database.serviceUrl, "DELETE FROM audit_checkpoint"),
        attempt(database.serviceUrl, "DELETE FROM credit_ledger"),
        attempt(database.serviceUrl, "TRUNCATE audit_log"),
        attempt(database.serviceUrl, "INSERT INTO effect_sql_migrations (migration_id, name) VALUES (999, 'x')"),
        attempt(database.serviceUrl, "CREATE TABLE brein_extra (id int)"),
        attempt(database.serviceUrl, "ALTER TABLE audit_log DISABLE TRIGGER audit_log_append_only")
      ])
      assert.deepStrictEqual(refused, Array(7).fill("42501"))
      assert.strictEqual(yield* attempt(database.serviceUrl, "SELECT count(*) FROM audit_log"), "ok")

      // A table of another owner in the schema (an extension's, say) is not brein's: it stops neither the grant nor a start.
      yield* Effect.scoped(
        Effect.flatMap(client(database.adminUrl), (sql) => sql.unsafe("CREATE TABLE spatial_ref_sys (srid serial PRIMARY KEY)"))
      )
      const beside = yield* brein(database.ownerUrl, "db", "migrate", "--service-role", database.service.name)
      assert.strictEqual(beside.exitCode, 0, beside.stderr)
      const serving = yield* brein(database.serviceUrl, "workspaces", "list")
      assert.strictEqual(serving.exitCode, 0, serving.stderr)

      // An upgrade adds a table: until the owner grants again, the service's role stops at start and names it.
      yield* Effect.scoped(
        Effect.flatMap(client(database.ownerUrl), (sql) => sql.unsafe("CREATE TABLE brein_added (id bigserial PRIMARY KEY)"))
      )
      const stale = yield* brein(database.serviceUrl, "workspaces", "list")
      assert.strictEqual(stale.exitCode, 1)
      assert.strictEqual(
        stale.stderr.trim(),
        `brein: the role "${database.service.name}" lacks rights on brein's tables (no SELECT and INSERT on the table brein_added; no USAGE on the sequence brein_added_id_seq): let it run the service with brein db migrate --service-role ${database.service.name}, as the role that owns them`
      )
      // a bare migrate (as after the upgrade's migrations) grants it the new relations: --service-role recorded it
      const bare = yield* brein(database.ownerUrl, "db", "migrate")
      assert.strictEqual(bare.exitCode, 0, bare.stderr)
      assert.match(
        bare.stdout,
        new RegExp(`granted "${database.service.name}" again \\(recorded by an earlier --service-role\\): the rows of \\d+ tables`)
      )
      assert.notInclude(bare.stdout, "was granted brein's tables before")
      const back = yield* brein(database.serviceUrl, "workspaces", "list")
      assert.strictEqual(back.exitCode, 0, back.stderr)
      // the record is the owner's: the service's role may not read it, nor add itself to it
      assert.strictEqual(yield* attempt(database.serviceUrl, "SELECT role FROM service_roles"), "42501")
    }).pipe(Effect.provide(NodeContext.layer)), { timeout: 120_000 })

  it.scopedLive(
    "a role granted before roles were recorded is recorded by the upgrade; one granted by hand is named with the command",
    () =>
      Effect.gen(function* () {
        const database = yield* ownedDatabase
        const owner = (statement: string) =>
          Effect.scoped(Effect.flatMap(client(database.ownerUrl), (sql) => sql.unsafe(statement))).pipe(Effect.orDie)
        // the database as the version before the record left it: migrated by its owner up to the record
        yield* Effect.scoped(migratedBefore(database.ownerUrl, RECORDED_FROM)).pipe(Effect.provide(Reactivity.layer), Effect.orDie)
        // and its --service-role, which recorded nothing. That version's grant is history and no longer
        // changes, so it is written out here, not asked of layers/ServiceRole.ts (today's grant, which records
        // the role): CONNECT, the schema, the rows of every table and the use of every sequence (named one by
        // one there; here the schema holds brein's relations only), the record of migrations read only, and
        // what the append-only triggers of those migrations refuse. Then an upgrade that adds a table.
        const role = database.service.name
        yield* owner(`GRANT CONNECT ON DATABASE ${database.name} TO ${role}; GRANT USAGE ON SCHEMA public TO ${role};
          GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${role};
          GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO ${role};
          REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON effect_sql_migrations FROM ${role};
          REVOKE UPDATE, DELETE, TRUNCATE ON audit_log, audit_checkpoint, credit_ledger, sequence_authorizations, work_session_events
            FROM ${role};
          REVOKE UPDATE ON topic_versions FROM ${role};
          CREATE TABLE brein_added (id bigserial PRIMARY KEY)`)
        const upgraded = yield* brein(database.ownerUrl, "db", "migrate")
        assert.strictEqual(upgraded.exitCode, 0, upgraded.stderr)
        const upgrade = known.map(migrationName).filter((name) => name >= RECORDED_FROM)
        assert.include(upgraded.stdout, `applied ${upgrade.length} migrations: ${upgrade.join(", ")}`)
        assert.include(upgraded.stdout, `granted "${database.service.name}" again (recorded by an earlier --service-role)`)
        assert.strictEqual((yield* brein(database.serviceUrl, "workspaces", "list")).exitCode, 0)

        // a role given the service's rights by hand is not recorded: a bare migrate names what it lacks, and the command
        const hand = yield* freshRole("brein_other")
        yield* owner(`GRANT CONNECT ON DATABASE ${database.name} TO ${hand.name}; GRANT USAGE ON SCHEMA public TO ${hand.name};
        GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA public TO ${hand.name}; GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO ${hand.name};
        REVOKE ALL ON service_roles FROM ${hand.name}; CREATE TABLE brein_later (id bigserial PRIMARY KEY)`)
        const named = yield* brein(database.ownerUrl, "db", "migrate")
        assert.strictEqual(named.exitCode, 0, named.stderr)
        assert.include(named.stdout, `granted "${database.service.name}" again`)
        assert.include(
          named.stdout,
          `"${hand.name}" was granted brein's tables before and lacks 2 of them now (brein_later, brein_later_id_seq): the service stops at start as that role until they are granted: brein db migrate --service-role ${hand.name}`
        )
        const recorded = yield* brein(database.ownerUrl, "db", "migrate", "--service-role", hand.name)
        assert.strictEqual(recorded.exitCode, 0, recorded.stderr)
        assert.include(recorded.stdout, `granted "${hand.name}" the rows of`)
        assert.include(recorded.stdout, `granted "${database.service.name}" again`)
        assert.notInclude(recorded.stdout, `granted "${hand.name}" again`, "the role just granted is not granted twice")
        assert.notInclude(recorded.stdout, "was granted brein's tables before")

        // a recorded role that can no longer be the service's is refused as the command refuses it, and stays recorded
        const server = Redacted.make(inject("databaseUrl"))
        yield* Effect.scoped(Effect.flatMap(client(server), (sql) => sql.unsafe(`ALTER ROLE ${hand.name} SUPERUSER`)))
        const refused = yield* brein(database.ownerUrl, "db", "migrate")
        assert.strictEqual(refused.exitCode, 0, refused.stderr)
        assert.include(
          refused.stdout,
          `"${hand.name}" was recorded by an earlier --service-role and was not granted again: "${hand.name}" is a superuser`
        )
        yield* Effect.scoped(Effect.flatMap(client(server), (sql) => sql.unsafe(`ALTER ROLE ${hand.name} NOSUPERUSER`)))
        // a recorded role dropped since leaves the record
        yield* Effect.scoped(Effect.flatMap(client(database.adminUrl), (sql) => sql.unsafe(`DROP OWNED BY ${hand.name}`)))
        yield* Effect.scoped(Effect.flatMap(client(server), (sql) => sql.unsafe(`DROP ROLE ${hand.name}`)))
        const gone = yield* brein(database.ownerUrl, "db", "migrate")
        assert.strictEqual(gone.exitCode, 0, gone.stderr)
        assert.include(
          gone.stdout,
          `"${hand.name}" was recorded by an earlier --service-role and no longer exists: it is no longer recorded`
        )
        const after = yield* brein(database.ownerUrl, "db", "migrate")
        assert.notInclude(after.stdout, hand.name)
        assert.include(after.stdout, `granted "${database.service.name}" again`)
      }).pipe(Effect.provide(NodeContext.layer)),
    { timeout: 120_000 }
  )

  it.scopedLive("the service's role on a database with a pending migration stops and says who applies it", () =>
    Effect.gen(function* () {
      const database = yield* ownedDatabase
      const granted = yield* brein(database.ownerUrl, "db", "migrate", "--service-role", database.service.name)
      assert.strictEqual(granted.exitCode, 0, granted.stderr)
      // as after an upgrade: the newest migration not yet applied
      yield* Effect.scoped(Effect.flatMap(client(database.ownerUrl), (sql) =>
        sql`DELETE FROM effect_sql_migrations WHERE migration_id = ${known[known.length - 1]?.[0] ?? 0}`)).pipe(Effect.orDie)

      const started = yield* Effect.exit(Layer.build(databaseFromUrl(database.serviceUrl)).pipe(Effect.provide(NodeContext.layer)))
      assert.isTrue(Exit.isFailure(started))
      const failure = Exit.isFailure(started) ? Cause.failureOption(started.cause) : Option.none()
      assert.strictEqual(Option.getOrUndefined(failure)?._tag, "MigrationsNotPermitted")

      const cli = yield* brein(database.serviceUrl, "workspaces", "list")
      assert.strictEqual(cli.exitCode, 1)
      assert.strictEqual(
        cli.stderr.trim(),
        `brein: 1 migration is pending (${LATEST}) and the role "${database.service.name}" may not apply them (permission denied for table effect_sql_migrations): apply them as the role that owns brein's tables, with its DATABASE_URL: brein db migrate --service-role ${database.service.name}`
      )
      const owner = yield* brein(database.ownerUrl, "db", "migrate", "--service-role", database.service.name)
      assert.include(owner.stdout, `applied 1 migration: ${LATEST}`)
      const after = yield* brein(database.serviceUrl, "workspaces", "list")
      assert.strictEqual(after.exitCode, 0, after.stderr)
    }).pipe(Effect.provide(NodeContext.layer)), { timeout: 120_000 })

  it.scopedLive("a role that cannot be the service's is refused, and nothing is granted to it", () =>
    Effect.gen(function* () {
      const database = yield* ownedDatabase
      const other = yield* freshRole("brein_other")
      const superuser = yield* freshRole("brein_super", "SUPERUSER")
      // before the owner has migrated, another role may not: every migration is pending
      const early = yield* brein(database.urlFor(other), "workspaces", "list")
      assert.strictEqual(early.exitCode, 1)
      assert.include(early.stderr, `brein: ${known.length} migrations are pending (0001_foundation, `)
      assert.include(early.stderr, `the role "${other.name}" may not apply them (permission denied for schema public)`)

      const granted = yield* brein(database.ownerUrl, "db", "migrate", "--service-role", database.service.name)
      assert.strictEqual(granted.exitCode, 0, granted.stderr)
      // a role never granted cannot even read which migrations ran, and is told how to be granted
      const ungranted = yield* brein(database.urlFor(other), "workspaces", "list")
      assert.strictEqual(ungranted.exitCode, 1)
      assert.include(
        ungranted.stderr,
        `brein: the role "${other.name}" lacks rights on brein's tables (permission denied for table effect_sql_migrations)`
      )
      assert.include(ungranted.stderr, `brein db migrate --service-role ${other.name}, as the role that owns them`)
      const cases = [
        { url: database.ownerUrl, role: "brein_nobody_here", says: `no role named "brein_nobody_here" on this server` },
        { url: database.ownerUrl, role: database.owner.name, says: "is the role running this command" },
        {
          url: database.serviceUrl,
          role: database.service.name,
          says:
            `"${database.service.name}" is the role running this command: run it as the role that owns brein's tables ("${database.owner.name}")`
        },
        { url: database.ownerUrl, role: superuser.name, says: "is a superuser" },
        // the service's role owns no table and may not grant on them: it is told to use the owner's DATABASE_URL
        {
          url: database.serviceUrl,
          role: other.name,
          says: `"${database.service.name}" is not the role that owns brein's tables ("${database.owner.name}", which ran the migrations)`
        }
      ]
      for (const { role, says, url } of cases) {
        const run = yield* brein(url, "db", "migrate", "--service-role", role)
        assert.strictEqual(run.exitCode, 1, `${role}: ${run.stdout}`)
        assert.include(run.stderr, says)
        assert.notInclude(run.stdout, "granted")
      }
      // membership is granted by the server's superuser (the owner has no ADMIN option on itself)
      const server = Redacted.make(inject("databaseUrl"))
      yield* Effect.scoped(Effect.flatMap(client(server), (sql) => sql.unsafe(`GRANT ${database.owner.name} TO ${other.name}`)))
      const member = yield* brein(database.ownerUrl, "db", "migrate", "--service-role", other.name)
      assert.strictEqual(member.exitCode, 1)
      assert.include(member.stderr, `is a member of "${database.owner.name}"`)
      yield* Effect.scoped(
        Effect.flatMap(client(server), (sql) => sql.unsafe(`REVOKE ${database.owner.name} FROM ${other.name}`))
      )
      const blank = yield* brein(database.ownerUrl, "db", "migrate", "--service-role", " ")
      assert.strictEqual(blank.exitCode, 2)
      assert.strictEqual(yield* attempt(database.urlFor(other), "SELECT 1 FROM audit_log"), "42501", "nothing was granted to it")
    }).pipe(Effect.provide(NodeContext.layer)), { timeout: 120_000 })
})
