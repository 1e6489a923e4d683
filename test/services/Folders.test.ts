import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Either } from "effect"
import { existsSync } from "node:fs"
import * as Path from "node:path"
import { FolderNotCreated, makeFolder } from "../../services/Folders.ts"

const modeOf = (fs: FileSystem.FileSystem, path: string) => Effect.map(fs.stat(path), (info) => info.mode & 0o777)

const tempFolder = Effect.flatMap(FileSystem.FileSystem, (fs) => fs.makeTempDirectoryScoped({ prefix: "brein-folders-" }))

/** The failure of `makeFolder`, which must come within a few seconds (Node's recursive mkdir never answers under /proc). */
const refusal = (folder: string, mode = 0o700) =>
  makeFolder(folder, mode).pipe(
    Effect.timeoutFail({ duration: Duration.seconds(5), onTimeout: () => new Error(`makeFolder(${folder}) did not answer within 5 s`) }),
    Effect.either,
    Effect.map((result) => {
      assert.isTrue(Either.isLeft(result), `${folder} was made`)
      const error = Either.isLeft(result) ? result.left : undefined
      assert.instanceOf(error, FolderNotCreated)
      return error instanceof FolderNotCreated ? error : assert.fail(String(error))
    })
  )

describe("makeFolder", () => {
  it.scopedLive("makes every missing level with the mode asked, and leaves the existing ones as they were", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const root = yield* tempFolder
      yield* fs.chmod(root, 0o751)
      const leaf = Path.join(root, "a", "b", "c")
      yield* makeFolder(leaf, 0o700)
      for (const level of [Path.join(root, "a"), Path.join(root, "a", "b"), leaf]) {
        assert.strictEqual(yield* modeOf(fs, level), 0o700, level)
      }
      assert.strictEqual(yield* modeOf(fs, root), 0o751, "the existing parent is untouched")
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("answers at once for a folder that exists, without changing it", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const root = yield* tempFolder
      yield* fs.chmod(root, 0o751)
      yield* makeFolder(root, 0o700)
      assert.strictEqual(yield* modeOf(fs, root), 0o751)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("two makers of the same folder at once both succeed", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const leaf = Path.join(yield* tempFolder, "x", "y", "z")
      yield* Effect.all(Array.from({ length: 4 }, () => makeFolder(leaf, 0o700)), { concurrency: "unbounded" })
      assert.isTrue((yield* fs.stat(leaf)).type === "Directory")
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("a file where a folder goes, itself or a parent, is refused naming both", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const root = yield* tempFolder
      const file = Path.join(root, "data")
      yield* fs.writeFileString(file, "")
      for (const folder of [file, Path.join(file, "pg"), Path.join(file, "pg", "deeper")]) {
        const error = yield* refusal(folder)
        assert.strictEqual(error.problem, "NotAFolder")
        assert.strictEqual(error.folder, folder)
        assert.strictEqual(error.at, file)
        assert.strictEqual(error.message, `cannot create the folder ${folder}: ${file} is a file, not a folder`)
      }
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("a relative folder is made under the current one and named in full when refused", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const root = yield* tempFolder
      const relative = Path.relative(process.cwd(), Path.join(root, "rel", "inner"))
      yield* makeFolder(relative, 0o700)
      assert.isTrue(yield* fs.exists(Path.join(root, "rel", "inner")))
      yield* fs.writeFileString(Path.join(root, "file"), "")
      const error = yield* refusal(Path.relative(process.cwd(), Path.join(root, "file", "x")))
      assert.strictEqual(error.folder, Path.join(root, "file", "x"))
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive.skipIf(!existsSync("/proc/self"))(
    "under /proc, where mkdir answers ENOENT beneath an existing parent, it is refused promptly",
    () =>
      Effect.gen(function* () {
        for (const folder of ["/proc/brein-data", "/proc/brein-data/pg/deeper"]) {
          const error = yield* refusal(folder)
          assert.strictEqual(error.problem, "NotCreatableHere")
          assert.strictEqual(error.at, "/proc/brein-data")
          assert.strictEqual(error.message, `cannot create the folder ${folder}: no folder can be created in /proc (ENOENT)`)
        }
      })
  )
})
