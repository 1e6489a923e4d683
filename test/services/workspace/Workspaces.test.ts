import { SqlClient } from "@effect/sql"
import { assert, describe, it, layer } from "@effect/vitest"
import { Cause, Clock, Effect, Exit, Option, Redacted, Tracer } from "effect"
import { sha256 } from "../../../services/Crypto.ts"
import { Channel } from "../../../services/Signals.ts"
import { DEMO_WORKSPACE, KEY_PREFIX, Workspaces } from "../../../services/workspace/Workspaces.ts"
import { waitUntil } from "../../support/Eventually.ts"
import { ServicesTest, uniqueName } from "../../support/TestLayers.ts"

const unauthorizedWith = (key: string) =>
  Effect.flatMap(Workspaces, (w) => w.authenticate(key)).pipe(Effect.flip, Effect.map((e) => e._tag))

layer(ServicesTest)("Workspaces", (it) => {
  it.effect("an issued key authenticates to its workspace and plan", () =>
    Effect.gen(function* () {
      const workspaces = yield* Workspaces
      const name = uniqueName("acme")
      const issued = yield* workspaces.issueKey({ workspace: name, plan: Option.some("paid") })
      assert.isTrue(Redacted.value(issued.key).startsWith(KEY_PREFIX))
      assert.strictEqual(String(issued.key), "<redacted>")
      const principal = yield* workspaces.authenticate(Redacted.value(issued.key))
      assert.strictEqual(principal.workspaceId, issued.workspace.id)
      assert.strictEqual(principal.workspaceName, name)
      assert.strictEqual(principal.plan, "paid")
      assert.match(principal.keyId ?? "", /^key_/)

      const other = yield* workspaces.issueKey({ workspace: uniqueName("other"), plan: Option.some("free") })
      const otherPrincipal = yield* workspaces.authenticate(Redacted.value(other.key))
      assert.notStrictEqual(otherPrincipal.workspaceId, principal.workspaceId)
      assert.strictEqual(otherPrincipal.plan, "free")

      const second = yield* workspaces.issueKey({ workspace: name, plan: Option.none() })
      const again = yield* workspaces.authenticate(Redacted.value(second.key))
      assert.deepStrictEqual([again.workspaceId, again.plan], [principal.workspaceId, "paid"])
      assert.notStrictEqual(again.keyId, principal.keyId)
    }))

  it.effect("an existing workspace keeps its plan unless one is given; a plan given moves it, and its keys answer the new plan at once", () =>
    Effect.gen(function* () {
      const workspaces = yield* Workspaces
      const name = uniqueName("tier")
      const issued = yield* workspaces.issueKey({ workspace: name, plan: Option.some("paid") })
      assert.isTrue(Option.isNone(issued.planWas), "a workspace made now left no plan")
      const planOfKey = Effect.map(workspaces.authenticate(Redacted.value(issued.key)), (p) => p.plan)
      assert.strictEqual(yield* planOfKey, "paid")

      assert.strictEqual((yield* workspaces.inProcess(name)).plan, "paid", "the library's principal does not demote it")
      const same = yield* workspaces.issueKey({ workspace: name, plan: Option.none() })
      assert.deepStrictEqual([same.workspace.plan, same.planWas], ["paid", Option.none()])
      assert.strictEqual(yield* planOfKey, "paid")

      const moved = yield* workspaces.issueKey({ workspace: name, plan: Option.some("free") })
      assert.deepStrictEqual([moved.created, moved.workspace.plan, moved.planWas], [false, "free", Option.some("paid")])
      assert.strictEqual(yield* planOfKey, "free", "a key known (cached) before answers the new plan")
      const again = yield* workspaces.issueKey({ workspace: name, plan: Option.some("free") })
      assert.isTrue(Option.isNone(again.planWas), "the plan it is already on is no move")

      assert.strictEqual((yield* workspaces.inProcess(name, "paid")).plan, "paid")
      assert.strictEqual(yield* planOfKey, "paid")
      assert.strictEqual((yield* workspaces.inProcess(uniqueName("fresh"))).plan, "free", "a workspace made without a plan is free")
    }))

  it.effect("a blank, whitespace-only, control-character or over-long workspace name is WorkspaceNameInvalid saying why, and no workspace is made", () =>
    Effect.gen(function* () {
      const workspaces = yield* Workspaces
      const before = (yield* workspaces.list()).length
      const cases = [
        ["", "a workspace name must not be blank"],
        ["   ", "a workspace name must not be blank"],
        ["\t\n", "a workspace name must not be blank"],
        ["a\tb", "a workspace name must not hold control characters"],
        ["line\nbreak", "a workspace name must not hold control characters"],
        [
          "next\u0085line",
          "a workspace name must not hold control characters (a tab, a line break, a direction override) (got \"next\\u0085line\")"
        ],
        [
          "acme\u202egpj.exe",
          "a workspace name must not hold control characters (a tab, a line break, a direction override) (got \"acme\\u202egpj.exe\")"
        ],
        ["a\u2028b", "a workspace name must not hold control characters"],
        ["w".repeat(101), "a workspace name must be at most 100 characters (got \"wwwwwwwwwwwwwwwwwwww\"…, 101 characters)"]
      ] as const
      for (const [name, says] of cases) {
        const issued = yield* workspaces.issueKey({ workspace: name, plan: Option.none() }).pipe(Effect.flip)
        assert.strictEqual(issued._tag, "WorkspaceNameInvalid")
        assert.include(issued.message, says)
        const created = yield* workspaces.create(name, "free").pipe(Effect.flip)
        assert.strictEqual(created._tag, "WorkspaceNameInvalid")
        const ensured = yield* workspaces.inProcess(name).pipe(Effect.flip)
        assert.strictEqual(ensured._tag, "WorkspaceNameInvalid")
      }
      assert.strictEqual((yield* workspaces.list()).length, before)
    }))

  it.effect("a name with spaces around it names the same workspace as without them, in every command and lookup", () =>
    Effect.gen(function* () {
      const workspaces = yield* Workspaces
      const name = uniqueName("trimmed")
      const created = yield* workspaces.create(`  ${name}\t`, "paid")
      assert.strictEqual(created.name, name)
      const again = yield* workspaces.create(name, "paid").pipe(Effect.flip)
      assert.strictEqual(again._tag, "WorkspaceExists")
      const issued = yield* workspaces.issueKey({ workspace: ` ${name} `, plan: Option.none() })
      assert.deepStrictEqual([issued.workspace.id, issued.workspace.name, issued.created], [created.id, name, false])
      assert.strictEqual((yield* workspaces.principalFor(`${name} `)).workspaceId, created.id)
      assert.strictEqual((yield* workspaces.inProcess(` ${name}`)).workspaceId, created.id)
      assert.deepStrictEqual((yield* workspaces.listKeys(Option.some(` ${name}`))).map((k) => k.workspace), [name])
      assert.deepStrictEqual((yield* workspaces.list()).filter((w) => w.name.includes(name)).map((w) => w.name), [name])
    }))

  it.effect("the database keeps only a hash of the key", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const issued = yield* (yield* Workspaces).issueKey({ workspace: uniqueName("hashed"), plan: Option.some("free") })
      const key = Redacted.value(issued.key)
      const rows = yield* sql<{ keyHash: string; whole: string }>`
        SELECT k.key_hash, row_to_json(k)::text AS whole FROM api_keys k WHERE workspace_id = ${issued.workspace.id}`
      assert.strictEqual(rows.length, 1)
      assert.strictEqual(rows[0]?.keyHash, sha256(key))
      assert.notInclude(rows[0]?.whole, key)
      assert.notInclude(rows[0]?.whole, key.slice(KEY_PREFIX.length))
    }))

  it.effect("an unknown or malformed key is Unauthorized", () =>
    Effect.gen(function* () {
      assert.strictEqual(yield* unauthorizedWith(`${KEY_PREFIX}notakeyatall`), "Unauthorized")
      assert.strictEqual(yield* unauthorizedWith("sk_live_elsewhere"), "Unauthorized")
      assert.strictEqual(yield* unauthorizedWith(""), "Unauthorized")
    }))

  it.effect("a repeated unknown key costs one lookup, not one per request; a malformed key costs none", () =>
    Effect.gen(function* () {
      const workspaces = yield* Workspaces
      const base = yield* Effect.tracer
      let statements = 0
      const counting = Tracer.make({
        span: (name, ...rest) => {
          if (name === "sql.execute") statements++
          return base.span(name, ...rest)
        },
        context: (f, fiber) => base.context(f, fiber)
      })
      const unknown = `${KEY_PREFIX}${"u".repeat(32)}`
      const tries = Effect.forEach(Array.from({ length: 1_000 }), () => Effect.flip(workspaces.authenticate(unknown)), { discard: true })
      yield* Effect.withTracer(tries, counting)
      assert.strictEqual(statements, 1, "one lookup for a thousand tries")
      yield* Effect.withTracer(Effect.flip(workspaces.authenticate(`${KEY_PREFIX}short`)), counting)
      assert.strictEqual(statements, 1, "a key of the wrong shape is refused without a lookup")
    }))

  it.effect("an unknown key remembered as unknown works as soon as a key with it is created (the keys signal clears it)", () =>
    Effect.gen(function* () {
      const workspaces = yield* Workspaces
      const sql = yield* SqlClient.SqlClient
      const issued = yield* workspaces.issueKey({ workspace: uniqueName("later"), plan: Option.some("free") })
      const key = `${KEY_PREFIX}${"n".repeat(32)}`
      assert.strictEqual(yield* unauthorizedWith(key), "Unauthorized")
      // another process creates a key with this hash and publishes it, as issueKey does
      yield* sql`INSERT INTO api_keys (id, workspace_id, prefix, key_hash)
                 SELECT 'key_later', workspace_id, ${key.slice(0, 14)}, ${sha256(key)} FROM api_keys LIMIT 1`
      yield* sql`SELECT pg_notify(${Channel.keys}, ${sha256(key)})`
      // the signal arrives in real time, whatever clock the test runs on
      const principal = yield* waitUntil(workspaces.authenticate(key).pipe(Effect.option), Option.isSome, {
        what: "the new key authenticates"
      }).pipe(
        Effect.withClock(Clock.make())
      )
      assert.strictEqual(Option.getOrThrow(principal).keyId, "key_later")
      assert.isOk(issued)
    }))

  it.effect("a lookup the database failed is not remembered: the key works as soon as the database answers", () =>
    Effect.gen(function* () {
      const workspaces = yield* Workspaces
      const sql = yield* SqlClient.SqlClient
      const issued = yield* workspaces.issueKey({ workspace: uniqueName("outage"), plan: Option.some("free") })
      const key = Redacted.value(issued.key)
      yield* sql`ALTER TABLE api_keys RENAME TO api_keys_away`
      const during = yield* Effect.exit(workspaces.authenticate(key))
      yield* sql`ALTER TABLE api_keys_away RENAME TO api_keys`
      assert.isTrue(Exit.isFailure(during) && Cause.isDie(during.cause), "the outage is a defect, not Unauthorized")
      // The test clock never moves: a failure kept for "zero" time would be answered again here.
      const principal = yield* workspaces.authenticate(key)
      assert.strictEqual(principal.workspaceId, issued.workspace.id)
      const used = yield* waitUntil(
        sql<{ lastUsedAt: Date | null }>`SELECT last_used_at FROM api_keys WHERE id = ${principal.keyId}`,
        (rows) => rows[0]?.lastUsedAt != null,
        { what: "last_used_at written" }
      ).pipe(Effect.withClock(Clock.make()))
      assert.lengthOf(used, 1)
    }))

  it.effect("a revoked key is Unauthorized at once, even after it was used", () =>
    Effect.gen(function* () {
      const workspaces = yield* Workspaces
      const issued = yield* workspaces.issueKey({ workspace: uniqueName("revoked"), plan: Option.some("paid") })
      const kept = yield* workspaces.issueKey({ workspace: issued.workspace.name, plan: Option.none() })
      const principal = yield* workspaces.authenticate(Redacted.value(issued.key))
      yield* workspaces.revoke(principal.keyId ?? "")
      assert.strictEqual(yield* unauthorizedWith(Redacted.value(issued.key)), "Unauthorized")
      assert.strictEqual((yield* workspaces.authenticate(Redacted.value(kept.key))).workspaceId, issued.workspace.id)
    }))

  it.effect("principalFor names an in-process principal, or fails for an unknown workspace", () =>
    Effect.gen(function* () {
      const workspaces = yield* Workspaces
      const issued = yield* workspaces.issueKey({ workspace: uniqueName("embedded"), plan: Option.some("free") })
      const principal = yield* workspaces.principalFor(issued.workspace.name)
      assert.deepStrictEqual([principal.workspaceId, principal.plan, principal.keyId], [issued.workspace.id, "free", null])
      const error = yield* Effect.flip(workspaces.principalFor(uniqueName("nobody")))
      assert.strictEqual(error._tag, "WorkspaceNotFound")
    }))
})

describe("Workspaces.ensureDemo", () => {
  it.effect("creates the paid demo workspace and its key on an empty database, and only once", () =>
    Effect.gen(function* () {
      const workspaces = yield* Workspaces
      const first = yield* workspaces.ensureDemo()
      assert.isTrue(Option.isSome(first))
      if (Option.isNone(first)) return
      const principal = yield* workspaces.authenticate(Redacted.value(first.value.key))
      assert.deepStrictEqual([principal.workspaceName, principal.plan], [DEMO_WORKSPACE, "paid"])
      assert.isTrue(Option.isNone(yield* workspaces.ensureDemo()))
      const sql = yield* SqlClient.SqlClient
      const [keys] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM api_keys`
      assert.strictEqual(keys?.n, 1)
    }).pipe(Effect.provide(ServicesTest)))
})
