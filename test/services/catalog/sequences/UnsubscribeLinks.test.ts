import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Cause, ConfigProvider, Effect, Exit, Layer, Option, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import { auditKeyIn } from "../../../../layers/AuditKey.ts"
import { UnsubscribeLinks } from "../../../../services/catalog/sequences/UnsubscribeLinks.ts"

const key = () => randomBytes(32).toString("base64")

/** The links of a process whose audit key is `auditKey` and, when given, whose BREIN_UNSUBSCRIBE_KEY is `own`. */
const linksOf = (auditKey: string, own?: string) =>
  Effect.gen(function* () {
    const dir = yield* (yield* FileSystem.FileSystem).makeTempDirectoryScoped({ prefix: "brein-unsubscribe-" })
    const config = new Map([
      ["BREIN_PUBLIC_URL", "https://brein.example.cl"],
      ...(own === undefined ? [] : [["BREIN_UNSUBSCRIBE_KEY", own] as const])
    ])
    return yield* UnsubscribeLinks.pipe(
      Effect.provide(
        UnsubscribeLinks.Default.pipe(
          Layer.provide(auditKeyIn(Option.some(Redacted.make(auditKey)), dir)),
          Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(config)))
        )
      )
    )
  }).pipe(Effect.provide(NodeContext.layer))

const tokenOf = (link: string) => link.split("/").at(-1) ?? ""

describe("unsubscribe links", () => {
  it.scoped("outlive a rotation of the audit key once BREIN_UNSUBSCRIBE_KEY is set, and links made before it still work", () =>
    Effect.gen(function* () {
      const [auditA, auditB, own] = [key(), key(), key()]
      const before = (yield* (yield* linksOf(auditA)).writer())("sq_1", "pe_1")
      assert.match(before, /^https:\/\/brein\.example\.cl\/u\/sq_1\/pe_1\/[0-9a-f]{32}$/)

      const withOwn = yield* linksOf(auditA, own)
      const after = (yield* withOwn.writer())("sq_1", "pe_1")
      assert.notStrictEqual(tokenOf(after), tokenOf(before), "written with the key of its own")
      assert.isTrue(yield* withOwn.verify("sq_1", "pe_1", tokenOf(after)))
      assert.isTrue(yield* withOwn.verify("sq_1", "pe_1", tokenOf(before)), "a link sent before the key was set still works")
      assert.isFalse(yield* withOwn.verify("sq_1", "pe_2", tokenOf(after)), "a link is one person's")

      const rotated = yield* linksOf(auditB, own)
      assert.strictEqual((yield* rotated.writer())("sq_1", "pe_1"), after, "the same link after the audit key changed")
      assert.isTrue(yield* rotated.verify("sq_1", "pe_1", tokenOf(after)))
      assert.isFalse(yield* rotated.verify("sq_1", "pe_1", tokenOf(before)), "made from an audit key the process no longer has")

      const rotatedWithout = yield* linksOf(auditB)
      assert.isFalse(
        yield* rotatedWithout.verify("sq_1", "pe_1", tokenOf(before)),
        "without a key of their own, links die with the audit key"
      )
      assert.isFalse(yield* rotatedWithout.verify("sq_1", "pe_1", tokenOf(after)))
    }))

  it.scoped("a BREIN_UNSUBSCRIBE_KEY shorter than 32 bytes stops the start with what to set", () =>
    Effect.gen(function* () {
      const exit = yield* Effect.exit(linksOf(key(), Buffer.from("too short").toString("base64")))
      assert.isTrue(Exit.isFailure(exit))
      if (Exit.isFailure(exit)) assert.include(Cause.pretty(exit.cause), "BREIN_UNSUBSCRIBE_KEY must be at least 32 bytes")
    }))
})
