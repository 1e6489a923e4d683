import { NodeContext } from "@effect/platform-node"
import { assert, layer } from "@effect/vitest"
import { Context, Effect, Layer, type Redacted } from "effect"
import { freshDatabase } from "../../support/TestDatabase.ts"
import { uniqueName } from "../../support/TestLayers.ts"
import { databaseEnv, runBrein, tempDataDir } from "./Brein.ts"

class CliDatabaseUrl extends Context.Tag("test/cli/MailboxesDatabaseUrl")<CliDatabaseUrl, Redacted.Redacted<string>>() {}

const MailboxesTest = Layer.unwrapScoped(Effect.map(freshDatabase, (url) => Layer.succeed(CliDatabaseUrl, url))).pipe(
  Layer.provideMerge(NodeContext.layer)
)

const brein = (...args: Array<string>) =>
  Effect.gen(function* () {
    return yield* runBrein(databaseEnv(yield* CliDatabaseUrl, yield* tempDataDir), ...args)
  }).pipe(Effect.scoped)

layer(MailboxesTest, { excludeTestServices: true, timeout: "90 seconds" })("brein mailboxes and suppressions", (it) => {
  it.effect("add records a grant with the domain checks; list shows it; bad flags are refused", () =>
    Effect.gen(function* () {
      const name = uniqueName("seq")
      assert.strictEqual((yield* brein("workspaces", "create", name)).exitCode, 0)
      const added = yield* brein(
        "mailboxes",
        "add",
        "--workspace",
        name,
        "--email",
        "ventas@acme.example",
        "--name",
        "Ventas",
        "--daily-cap",
        "300",
        "--no-dmarc"
      )
      assert.strictEqual(added.exitCode, 0, added.stderr)
      assert.match(added.stdout.trim(), /^mb_[A-Za-z0-9]+$/)
      assert.match(added.stderr, /grant grant_[A-Za-z0-9]+/)
      const listed = yield* brein("mailboxes", "list", "--workspace", name)
      const row = listed.stdout.split("\n").find((line) => line.startsWith(added.stdout.trim()))
      assert.match(row ?? "", /ventas@acme\.example\s+Ventas\s+grant_\w+\s+yes\s+yes\s+no\s+300\s+30s/)
      const again = yield* brein("mailboxes", "add", "--workspace", name, "--email", "ventas@acme.example", "--name", "Otra")
      assert.strictEqual(again.exitCode, 1)
      const capped = yield* brein("mailboxes", "add", "--workspace", name, "--email", "b@acme.example", "--name", "B", "--daily-cap", "900")
      assert.notStrictEqual(capped.exitCode, 0)
      assert.include(capped.stdout + capped.stderr, "--daily-cap must be between 1 and 700")
      for (
        const [bad, says] of [["", "--name must not be blank"], ["   ", "--name must not be blank"], [
          "Ventas\r\nBcc: x@y.example",
          "--name must not hold control characters"
        ], ["x".repeat(101), "--name must be at most 100 characters, not 101"]]
      ) {
        const refused = yield* brein("mailboxes", "add", "--workspace", name, "--email", "c@acme.example", "--name", bad)
        assert.strictEqual(refused.exitCode, 2, refused.stderr)
        assert.include(refused.stdout + refused.stderr, says)
      }
      const trimmed = yield* brein("mailboxes", "add", "--workspace", name, "--email", "d@acme.example", "--name", "  Equipo  ")
      assert.strictEqual(trimmed.exitCode, 0, trimmed.stderr)
      const kept = (yield* brein("mailboxes", "list", "--workspace", name)).stdout.split("\n")
      assert.isFalse(kept.some((line) => line.includes("c@acme.example")), "a refused mailbox was not added")
      assert.match(kept.find((line) => line.includes("d@acme.example")) ?? "", /d@acme\.example\s+Equipo\s+grant_/)

      const suppressed = yield* brein(
        "suppressions",
        "add",
        "--workspace",
        name,
        "--address",
        "@competidor.example",
        "--reason",
        "blocked_domain"
      )
      assert.strictEqual(suppressed.exitCode, 0, suppressed.stderr)
      const badReason = yield* brein("suppressions", "add", "--workspace", name, "--address", "a@b.example", "--reason", "annoying")
      assert.notStrictEqual(badReason.exitCode, 0)
      const mismatch = yield* brein("suppressions", "add", "--workspace", name, "--address", "a@b.example", "--reason", "blocked_domain")
      assert.strictEqual(mismatch.exitCode, 2)
      const list = yield* brein("suppressions", "list", "--workspace", name)
      assert.match(list.stdout, /@competidor\.example\s+blocked_domain\s+operator/)
      assert.notInclude(list.stdout, "a@b.example")
    }), { timeout: 90_000 })
})
