import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { assert, describe, it } from "@effect/vitest"
import { Cause, ConfigProvider, Context, Effect, Exit, Layer, Option } from "effect"
import { databaseFromUrl } from "../../layers/Database.ts"
import { VaultKeyLive } from "../../layers/Vault.ts"
import { Vault } from "../../services/connections/Vault.ts"
import { freshDatabase } from "../support/TestDatabase.ts"

/** The vault over the key kept in `dataDir` (no BREIN_SECRET_KEY), on a database of its own. */
const vaultIn = (dataDir: string) =>
  Vault.Default.pipe(
    Layer.provide(VaultKeyLive),
    Layer.provideMerge(Layer.unwrapScoped(Effect.map(freshDatabase, databaseFromUrl))),
    Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["BREIN_DATA_DIR", dataDir]]))))
  )

/** A connection whose credentials were sealed (by a key this test does not have). */
const sealedElsewhere = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`INSERT INTO workspaces (id, name, plan) VALUES ('ws_vaulttest', 'vault-test', 'paid')`
  yield* sql`INSERT INTO connections (id, workspace_id, connector, credentials) VALUES ('conn_vaulttest', 'ws_vaulttest', 'sii', 'v1:a:b:c')`
})

/** The message of a seal or an open that died. */
const diedWith = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.map(Effect.exit(effect), (exit) => {
    assert.isTrue(Exit.isFailure(exit))
    return Exit.isFailure(exit) ? Option.getOrElse(Option.map(Cause.dieOption(exit.cause), String), () => Cause.pretty(exit.cause)) : ""
  })

describe("the credentials key kept in the data folder", () => {
  it.scopedLive("is made by the first seal, not at start, and opens what it sealed", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const dataDir = yield* fs.makeTempDirectoryScoped({ prefix: "brein-vault-" })
      const context = yield* Layer.build(vaultIn(dataDir))
      const vault = Context.get(context, Vault)
      assert.isFalse(yield* fs.exists(`${dataDir}/secret.key`), "starting reads no key and makes none")
      const sealed = yield* vault.seal("secreto")
      assert.isTrue(yield* fs.exists(`${dataDir}/secret.key`))
      assert.strictEqual(yield* vault.open(sealed), "secreto")
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("missing where connections hold sealed credentials: nothing is sealed, no new key is made", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const dataDir = yield* fs.makeTempDirectoryScoped({ prefix: "brein-vault-" })
      const context = yield* Layer.build(vaultIn(dataDir))
      yield* sealedElsewhere.pipe(Effect.provide(context))
      const vault = Context.get(context, Vault)
      const sealing = yield* diedWith(vault.seal("secreto"))
      assert.include(sealing, `${dataDir}/secret.key is missing, and 1 connection(s) hold credentials sealed with it`)
      assert.include(sealing, "restore it")
      assert.isFalse(yield* fs.exists(`${dataDir}/secret.key`), "no key was made")
      assert.include(yield* diedWith(vault.open("v1:a:b:c")), "is missing")
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("that is not a key, or not a file, is named as such when credentials are used; a start does not read it", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      for (
        const [make, said] of [
          [(file: string) => fs.writeFileString(file, "kept"), "is not a key: it must hold 32 bytes, base64-encoded"],
          [(file: string) => fs.makeDirectory(file), "cannot be read"]
        ] as const
      ) {
        const dataDir = yield* fs.makeTempDirectoryScoped({ prefix: "brein-vault-" })
        yield* make(`${dataDir}/secret.key`)
        const vault = Context.get(yield* Layer.build(vaultIn(dataDir)), Vault)
        const message = yield* diedWith(vault.seal("secreto"))
        assert.include(message, `the credentials key ${dataDir}/secret.key ${said}`)
        assert.notInclude(message, "BREIN_SECRET_KEY must")
      }
    }).pipe(Effect.provide(NodeContext.layer)))
})
