import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Cause, ConfigProvider, Context, Effect, Exit, Layer, Option } from "effect"
import { randomBytes } from "node:crypto"
import { auditKeyIn, AuditKeyLive } from "../../layers/AuditKey.ts"
import { AuditKey } from "../../services/audit/AuditKey.ts"
import { AuditLog } from "../../services/audit/AuditLog.ts"
import { AuditStoreSql } from "../../services/audit/AuditStoreSql.ts"
import { entry } from "../services/audit/Support.ts"
import { TestDatabase } from "../support/TestDatabase.ts"

/** The audit key of the data folder `dir` (no BREIN_AUDIT_KEY), as a serving process has it. */
const keyIn = (dir: string) => Effect.map(Layer.build(auditKeyIn(Option.none(), dir)), (context) => Context.get(context, AuditKey))

const witnessed = { brein_db: { seq: 7, signature: "aa".repeat(32) } }

const dieMessage = <A, E>(exit: Exit.Exit<A, E>) =>
  Exit.isFailure(exit) ? Option.getOrElse(Option.map(Cause.dieOption(exit.cause), String), () => Cause.pretty(exit.cause)) : ""

/** The audit key as a serving process settles it at start, in the data folder `dir`, with BREIN_AUDIT_KEY if `setting` is given. */
const serverKey = (dir: string, setting?: string) =>
  Layer.build(AuditKeyLive).pipe(
    Effect.map((context) => Context.get(context, AuditKey)),
    Effect.withConfigProvider(ConfigProvider.fromMap(
      new Map([["BREIN_DATA_DIR", dir], ...(setting === undefined ? [] : [["BREIN_AUDIT_KEY", setting] as const])])
    ))
  )

/** A first server in `dir` records a call and signs a checkpoint with its key. */
const firstServerSigns = (dir: string) =>
  Effect.gen(function* () {
    const key = yield* serverKey(dir)
    const log = Context.get(yield* Layer.build(AuditLog.Default.pipe(Layer.provide(Layer.succeed(AuditKey, key)))), AuditLog)
    yield* log.record(entry("ws_first"))
    assert.isTrue(Option.isSome(yield* log.checkpoint()), "the first server signed a checkpoint")
  })

/** The audit store over a database of its own, for each test. */
const AuditDatabase = AuditStoreSql.pipe(Layer.provideMerge(TestDatabase), Layer.provideMerge(NodeContext.layer))

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

describe("the audit key of a serving process, over a database that holds checkpoints", () => {
  it.scoped(
    "is not made in a data folder of its own: the process stops saying where the key is; with that key (copied, or set) it starts",
    () =>
      Effect.gen(function* () {
        const fs = yield* FileSystem.FileSystem
        const first = yield* fs.makeTempDirectoryScoped({ prefix: "brein-auditkey-" })
        const second = yield* fs.makeTempDirectoryScoped({ prefix: "brein-auditkey-" })
        yield* firstServerSigns(first)
        const said = dieMessage(yield* Effect.exit(serverKey(second)))
        assert.include(said, `the audit key ${second}/audit.key is missing (and BREIN_AUDIT_KEY is not set)`)
        assert.include(said, "this database holds checkpoints signed with one")
        assert.include(said, "copy audit.key from the data folder of the server that signed them")
        assert.isFalse(yield* fs.exists(`${second}/audit.key`), "no new key was written")
        // the ways out the message names
        const firstKey = yield* fs.readFileString(`${first}/audit.key`)
        assert.isTrue(Option.isSome(yield* (yield* serverKey(second, firstKey)).forSigning), "BREIN_AUDIT_KEY set to the first's key")
        yield* fs.copyFile(`${first}/audit.key`, `${second}/audit.key`)
        assert.isTrue(Option.isSome(yield* (yield* serverKey(second)).forSigning), "the first's audit.key copied")
      }).pipe(Effect.provide(AuditDatabase))
  )

  it.scoped("is refused when it did not sign them, whether set in BREIN_AUDIT_KEY or kept in the data folder", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const first = yield* fs.makeTempDirectoryScoped({ prefix: "brein-auditkey-" })
      const other = yield* fs.makeTempDirectoryScoped({ prefix: "brein-auditkey-" })
      yield* firstServerSigns(first)
      const wrong = randomBytes(32).toString("base64")
      const set = dieMessage(yield* Effect.exit(serverKey(other, wrong)))
      assert.include(
        set,
        "the audit key in BREIN_AUDIT_KEY did not sign this database's checkpoints (checkpoint 1 does not verify with it)"
      )
      assert.include(set, "set BREIN_AUDIT_KEY to the key of the server that signed them")
      yield* fs.writeFileString(`${other}/audit.key`, wrong)
      const kept = dieMessage(yield* Effect.exit(serverKey(other)))
      assert.include(kept, `the audit key ${other}/audit.key did not sign this database's checkpoints`)
      assert.include(kept, `replace ${other}/audit.key with the audit.key of the server that signed them`)
      assert.isTrue(Option.isSome(yield* (yield* serverKey(first)).forSigning), "the key that signed them still starts")
    }).pipe(Effect.provide(AuditDatabase)))
})
