import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Either, Option, TestClock } from "effect"
import { InternalError, RateLimited, SessionRequired, Unauthorized } from "../../../schema/Errors.ts"
import { ApiKeyId, WorkspaceId } from "../../../schema/Ids.ts"
import { Principal } from "../../../schema/Principal.ts"
import { parseLimit, RateLimits } from "../../../services/limits/RateLimits.ts"
import { sourceOf } from "../../../services/limits/Source.ts"

const principal = (key: string) =>
  new Principal({ workspaceId: WorkspaceId.make("ws_1"), workspaceName: "acme", plan: "free", keyId: ApiKeyId.make(key) })
const badKey = new Unauthorized({ message: "missing, unknown or revoked API key" })

/** The limiter under the given settings, built on the test's clock. */
const limits = (settings: Record<string, string>) =>
  Effect.provide(RateLimits, RateLimits.Default).pipe(Effect.withConfigProvider(ConfigProvider.fromJson(settings)))

describe("RateLimits", () => {
  it.effect("a key over its limit is refused with the seconds to wait; another key is not; after that wait it passes", () =>
    Effect.gen(function* () {
      const rl = yield* limits({ BREIN_RATE_LIMIT_KEY: "2/60s" })
      const lookup = (key: string) => Effect.sync(() => principal(key))
      yield* rl.authenticate("10.0.0.1", lookup("key_a"))
      yield* TestClock.adjust("10 seconds")
      yield* rl.authenticate("10.0.0.1", lookup("key_a"))
      const refused = yield* Effect.flip(rl.authenticate("10.0.0.1", lookup("key_a")))
      assert.instanceOf(refused, RateLimited)
      // both in the bucket [0 s, 60 s): the window has slid far enough once that bucket weighs half, at 90 s
      assert.strictEqual(refused.retryAfterSeconds, 80)
      assert.include(refused.message, "this API key sent more than 2 requests in 60 s; retry in 80 s")
      yield* rl.authenticate("10.0.0.1", lookup("key_b"))
      yield* TestClock.adjust("79 seconds")
      assert.strictEqual((yield* Effect.flip(rl.authenticate("10.0.0.1", lookup("key_a"))))._tag, "RateLimited")
      yield* TestClock.adjust("1 second")
      assert.strictEqual((yield* rl.authenticate("10.0.0.1", lookup("key_a"))).keyId, "key_a")
    }))

  it.effect("an address over its failures is refused before the lookup runs, whatever key it sends, until the window slides", () =>
    Effect.gen(function* () {
      const rl = yield* limits({ BREIN_RATE_LIMIT_FAILURES: "3/60s" })
      const lookups = { count: 0 }
      const failing = Effect.suspend(() => {
        lookups.count += 1
        return Effect.fail(badKey)
      })
      for (let i = 0; i < 3; i++) assert.strictEqual((yield* Effect.flip(rl.authenticate("10.0.0.1", failing)))._tag, "Unauthorized")
      const refused = yield* Effect.flip(rl.authenticate("10.0.0.1", failing))
      assert.strictEqual(refused._tag, "RateLimited")
      assert.include(refused.message, "this address sent more than 3 requests in 60 s with a missing, unknown or revoked API key")
      yield* Effect.flip(rl.authenticate("::ffff:10.0.0.1", Effect.succeed(principal("key_a"))))
      assert.strictEqual(lookups.count, 3, "refused before the lookup")
      assert.strictEqual((yield* Effect.flip(rl.authenticate("10.0.0.2", failing)))._tag, "Unauthorized", "another address is not affected")
      for (let i = 0; i < 5; i++) {
        yield* Effect.flip(rl.authenticate("10.0.0.3", Effect.fail(new InternalError({ message: "database down" }))))
      }
      assert.strictEqual((yield* Effect.flip(rl.authenticate("10.0.0.3", failing)))._tag, "Unauthorized", "only refused keys count")
      yield* TestClock.adjust("120 seconds")
      assert.strictEqual((yield* Effect.flip(rl.authenticate("10.0.0.1", failing)))._tag, "Unauthorized")
      assert.strictEqual(lookups.count, 6)
    }))

  it.effect("a session is counted on its own, and a refused session counts against its address like a refused key", () =>
    Effect.gen(function* () {
      const rl = yield* limits({ BREIN_RATE_LIMIT_KEY: "2/60s", BREIN_RATE_LIMIT_FAILURES: "2/60s" })
      const session = (sessionId: string) => Effect.succeed({ sessionId })
      yield* rl.authenticateSession("10.0.0.1", session("sess_a"))
      yield* rl.authenticateSession("10.0.0.1", session("sess_a"))
      const over = yield* Effect.flip(rl.authenticateSession("10.0.0.1", session("sess_a")))
      assert.include(over.message, "this session sent more than 2 requests in 60 s")
      yield* rl.authenticateSession("10.0.0.1", session("sess_b"))
      yield* rl.authenticate("10.0.0.1", Effect.succeed(principal("key_a")))

      const noSession = SessionRequired.of("sign in first")
      for (let i = 0; i < 2; i++) yield* Effect.flip(rl.authenticateSession("10.0.0.9", Effect.fail(noSession)))
      const flooded = yield* Effect.flip(rl.authenticate("10.0.0.9", Effect.succeed(principal("key_b"))))
      assert.strictEqual(flooded._tag, "RateLimited")
    }))

  it.effect("0 or off turns a limit off", () =>
    Effect.gen(function* () {
      const rl = yield* limits({ BREIN_RATE_LIMIT_KEY: "off", BREIN_RATE_LIMIT_FAILURES: "0" })
      for (let i = 0; i < 200; i++) {
        yield* rl.authenticate("10.0.0.1", Effect.succeed(principal("key_a")))
        yield* Effect.flip(rl.authenticate("10.0.0.1", Effect.fail(badKey)))
      }
      assert.isTrue(Option.isNone(rl.perKey) && Option.isNone(rl.perSource))
    }))

  it.effect("a setting that is not a limit stops the service from starting, naming the variable", () =>
    Effect.gen(function* () {
      const failed = yield* Effect.flip(limits({ BREIN_RATE_LIMIT_KEY: "lots" }))
      assert.include(String(failed), "BREIN_RATE_LIMIT_KEY")
      assert.include(String(failed), "600/60s")
    }))

  it("settings: requests/window with ms, s, m or h; 0 and off", () => {
    assert.deepStrictEqual(parseLimit("600/60s"), Either.right(Option.some({ limit: 600, windowMs: 60_000 })))
    assert.deepStrictEqual(parseLimit(" 20 / 10m "), Either.right(Option.some({ limit: 20, windowMs: 600_000 })))
    assert.deepStrictEqual(parseLimit("100/s"), Either.right(Option.some({ limit: 100, windowMs: 1000 })))
    assert.deepStrictEqual(parseLimit("5/1h"), Either.right(Option.some({ limit: 5, windowMs: 3_600_000 })))
    assert.deepStrictEqual(parseLimit("OFF"), Either.right(Option.none()))
    assert.deepStrictEqual(parseLimit("0"), Either.right(Option.none()))
    assert.deepStrictEqual(parseLimit("5/24h"), Either.right(Option.some({ limit: 5, windowMs: 86_400_000 })))
    assert.deepStrictEqual(parseLimit("10/25h"), Either.left(`"10/25h" has a window longer than a day (24h at most)`))
    for (const bad of ["600", "600/60", "0/60s", "600/0s", "-1/60s", "1.5/60s", "600/60d", "", "10/99999999999h", "1/86400001ms"]) {
      assert.isTrue(Either.isLeft(parseLimit(bad)), bad)
    }
    // quoted in characters: 40 emoji, not 20 and half of one (a lone surrogate no JSON reader takes)
    const refused = parseLimit("🙂".repeat(50))
    assert.isTrue(Either.isLeft(refused))
    if (Either.isLeft(refused)) assert.isTrue(refused.left.startsWith(`"${"🙂".repeat(40)}" is not a rate limit`), refused.left)
  })

  it("sources: IPv4 as is (also mapped), IPv6 by its /64", () => {
    assert.strictEqual(sourceOf("203.0.113.9"), "203.0.113.9")
    assert.strictEqual(sourceOf("::ffff:203.0.113.9"), "203.0.113.9")
    assert.strictEqual(sourceOf("2001:db8:0:1:a:b:c:d"), "2001:db8:0:1::/64")
    assert.strictEqual(sourceOf("2001:DB8:0:1::d"), "2001:db8:0:1::/64")
    assert.strictEqual(sourceOf("2001:db8::1"), "2001:db8:0:0::/64")
    assert.strictEqual(sourceOf("::1"), "0:0:0:0::/64")
    assert.strictEqual(sourceOf("fe80::1%eth0"), "fe80:0:0:0::/64")
    assert.strictEqual(sourceOf(undefined), "unknown")
  })
})
