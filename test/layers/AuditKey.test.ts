import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Cause, Context, Effect, Exit, Layer, Option } from "effect"
import { auditKeyIn } from "../../layers/AuditKey.ts"
import { AuditKey } from "../../services/audit/AuditKey.ts"

/** The audit key of the data folder `dir` (no BREIN_AUDIT_KEY), as a serving process has it. */
const keyIn = (dir: string) => Effect.map(Layer.build(auditKeyIn(Option.none(), dir)), (context) => Context.get(context, AuditKey))

const witnessed = { brein_db: { seq: 7, signature: "aa".repeat(32) } }

describe("the audit key kept in the data folder", () => {
  it.scoped("is made on first use in a folder that never signed", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped({ prefix: "brein-auditkey-" })
      const key = yield* keyIn(dir)
      assert.isTrue(Option.isSome(yield* key.forSigning))
      assert.isTrue(yield* fs.exists(`${dir}/audit.key`))
      assert.isTrue(Option.isSome(yield* (yield* keyIn(dir)).forVerify), "the next process reads the same key")
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("is not made again where checkpoints were signed with one: the process stops saying how to restore it", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped({ prefix: "brein-auditkey-" })
      yield* fs.writeFileString(`${dir}/audit.witness`, JSON.stringify(witnessed))
      const exit = yield* Effect.exit((yield* keyIn(dir)).forSigning)
      assert.isTrue(Exit.isFailure(exit))
      const said = Exit.isFailure(exit) ? Option.getOrElse(Option.map(Cause.dieOption(exit.cause), String), () => "") : ""
      assert.include(said, `${dir}/audit.key is missing`)
      assert.include(said, "restore audit.key from a backup, or set BREIN_AUDIT_KEY")
      assert.include(said, `remove ${dir}/audit.witness`)
      assert.isFalse(yield* fs.exists(`${dir}/audit.key`), "no new key was written")
      // the way out the message names: without the witness, a new key is made
      yield* fs.remove(`${dir}/audit.witness`)
      assert.isTrue(Option.isSome(yield* (yield* keyIn(dir)).forSigning))
    }).pipe(Effect.provide(NodeContext.layer)))
})
