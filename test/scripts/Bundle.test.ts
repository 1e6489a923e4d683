import { Command, FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { waitUntil } from "../support/Eventually.ts"

const root = fileURLToPath(new URL("../..", import.meta.url))
const bundleInto = (outdir: string) => Command.make(process.execPath, "scripts/bundle.mjs", outdir).pipe(Command.workingDirectory(root))

const build = (outdir: string) =>
  Effect.gen(function* () {
    const child = yield* Command.start(bundleInto(outdir))
    const [stderr, exitCode] = yield* Effect.all([child.stderr.pipe(Stream.decodeText(), Stream.mkString), child.exitCode], {
      concurrency: "unbounded"
    })
    return { stderr, exitCode: Number(exitCode) }
  }).pipe(Effect.scoped)

/** The chunks the built program imports that are not in `outdir`, and what else is left there besides the program. */
const leftovers = (outdir: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const names = yield* fs.readDirectory(outdir)
    const scripts = names.filter((name) => name.endsWith(".js"))
    const texts = yield* Effect.forEach(scripts, (name) => fs.readFileString(Path.join(outdir, name)))
    const imported = new Set(texts.flatMap((text) => [...text.matchAll(/\.\/(chunk-[A-Z0-9]+\.js)/g)].map((match) => match[1])))
    return {
      missing: [...imported].filter((name) => !names.includes(name ?? "")),
      extra: names.filter((name) => !/^(brein|chunk-[A-Z0-9]+)\.js(\.map)?$/.test(name) || name.includes("OLD"))
    }
  })

const HOUR_AGO = new Date(Date.now() - 60 * 60 * 1000)

describe("scripts/bundle.mjs", () => {
  it.scopedLive(
    "two builds into one folder at once both succeed and leave one whole program, its old chunks removed",
    () =>
      Effect.gen(function* () {
        const fs = yield* FileSystem.FileSystem
        const outdir = yield* fs.makeTempDirectoryScoped({ prefix: "brein-bundle-" })
        // a previous build's chunks, long unused: each build removes them as it ends
        yield* Effect.forEach(
          Array.from({ length: 20_000 }, (_, i) => Path.join(outdir, `chunk-OLD${i}.js`)),
          (file) => fs.writeFileString(file, "").pipe(Effect.zipRight(fs.utimes(file, HOUR_AGO, HOUR_AGO))),
          { concurrency: 16 }
        )
        const runs = yield* Effect.all([build(outdir), build(outdir)], { concurrency: "unbounded" })
        assert.deepStrictEqual(runs, [{ stderr: "", exitCode: 0 }, { stderr: "", exitCode: 0 }])
        assert.deepStrictEqual(yield* leftovers(outdir), { missing: [], extra: [] })
      }).pipe(Effect.provide(NodeContext.layer)),
    120_000
  )

  it.scopedLive(
    "a build killed midway leaves nothing that stops the next: its lock and half-written files are taken over",
    () =>
      Effect.gen(function* () {
        const fs = yield* FileSystem.FileSystem
        const outdir = yield* fs.makeTempDirectoryScoped({ prefix: "brein-bundle-" })
        const killed = yield* Command.start(bundleInto(outdir))
        const lock = Path.join(outdir, ".bundle.lock")
        yield* waitUntil(fs.exists(lock), (held) => held, { what: "the build took its lock" })
        // as a build killed while writing leaves them
        yield* fs.writeFileString(Path.join(outdir, `brein.js.${killed.pid}.partial`), "export {")
        yield* killed.kill("SIGKILL")
        assert.isTrue(yield* fs.exists(lock), "the killed build left its lock")
        assert.deepStrictEqual(yield* build(outdir), { stderr: "", exitCode: 0 })
        assert.deepStrictEqual(yield* leftovers(outdir), { missing: [], extra: [] })
        assert.isTrue((yield* fs.readDirectory(outdir)).includes("brein.js"))
      }).pipe(Effect.provide(NodeContext.layer)),
    120_000
  )
})
