import { FileSystem } from "@effect/platform"
import { Array as Arr, Effect, Order, Schema } from "effect"

const CpuProfile = Schema.parseJson(Schema.Struct({
  nodes: Schema.Array(Schema.Struct({
    id: Schema.Number,
    callFrame: Schema.Struct({ functionName: Schema.String, url: Schema.String, lineNumber: Schema.Number, columnNumber: Schema.Number }),
    children: Schema.optional(Schema.Array(Schema.Number))
  })),
  samples: Schema.Array(Schema.Number),
  timeDeltas: Schema.Array(Schema.Number),
  startTime: Schema.Number,
  endTime: Schema.Number
}))

/** The part of the profile to summarize, counted back from its end, in microseconds. */
export interface Window {
  readonly endsBeforeEnd: number
  readonly length: number
}

export interface Share {
  readonly name: string
  readonly percent: number
}

export interface ProfileSummary {
  readonly file: string
  readonly samples: number
  readonly busy: number
  readonly self: ReadonlyArray<Share>
  readonly inclusive: ReadonlyArray<Share>
  readonly areas: ReadonlyArray<Share>
  /** self time of the busy samples by what the work is (JSON, Schema, fibers, spans, pg, hashing, sockets) */
  readonly buckets: ReadonlyArray<Share>
}

const shortUrl = (url: string) => {
  const modules = url.lastIndexOf("node_modules/")
  if (modules >= 0) return url.slice(modules + "node_modules/".length)
  const project = url.search(/\/(schema|services|layers|src)\//)
  return project >= 0 ? url.slice(project + 1) : url.replace(/^file:\/\//, "")
}

/** Where a frame's code lives: an npm package, a brein folder, node itself, or V8's pseudo-frames. */
const areaOf = (functionName: string, url: string) => {
  if (url === "") return functionName.startsWith("(") ? functionName : "(native)"
  if (url.startsWith("node:")) return "node internals"
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)
  if (modules !== null) return modules[1] ?? url
  const project = /\/((?:schema|services|layers|src)\/.+)$/.exec(url)
  return project === null ? url : `brein ${project[1]}`
}

const SCHEMA = /effect\/dist\/esm\/(ParseResult|Schema|SchemaAST|JSONSchema)\.js/
const SPANS = /effect\/dist\/esm\/(internal\/tracer|internal\/core-effect|Effect|Tracer)\.js/
const PG = /node_modules\/(pg|pg-protocol|pg-pool|pg-types|@effect\/sql|@effect\/sql-pg)\//
const SOCKETS = /^node:(_http_|net|stream|internal\/streams|internal\/stream_base|events|internal\/http|http)/

/** What a frame's self time is spent on, in the terms the executor's cost is discussed in. */
const bucketOf = (functionName: string, url: string) => {
  if (url === "") {
    if (functionName === "parse" || functionName === "stringify") return "JSON parse/stringify"
    if (functionName.startsWith("(")) return functionName
    if (/^(writev|writeUtf8String|writeBuffer|writeLatin1String|onStreamRead)$/.test(functionName)) return "sockets and HTTP (node)"
    return "other native"
  }
  if (SCHEMA.test(url)) return "Schema decode/encode"
  if (SPANS.test(url)) return "spans and Effect.fn"
  if (url.includes("effect/dist/")) return "fibers (Effect runtime)"
  if (PG.test(url)) return "pg protocol and @effect/sql"
  if (url.startsWith("node:internal/crypto") || url.endsWith("services/audit/Chain.ts")) return "audit hashing (sha256)"
  if (SOCKETS.test(url)) return "sockets and HTTP (node)"
  if (url.includes("@modelcontextprotocol") || url.includes("node_modules/zod")) return "MCP SDK"
  if (url.startsWith("node:")) return "other node internals"
  if (url.includes("node_modules/")) return "other packages"
  return "brein code"
}

const top = (counts: Map<string, number>, total: number, n: number): ReadonlyArray<Share> =>
  Arr.take(
    Arr.sort(
      Array.from(counts, ([name, count]) => ({ name, percent: (100 * count) / total })),
      Order.reverse(Order.mapInput(Order.number, (share: Share) => share.percent))
    ),
    n
  )

const bump = (counts: Map<string, number>, key: string) => counts.set(key, (counts.get(key) ?? 0) + 1)

const skip = new Set(["(root)", "(program)", "(idle)", "(garbage collector)"])

/**
 * Self time per frame, inclusive time per frame (each frame once per stack) and self time per area,
 * over the samples taken inside `window`.
 */
export const summarize = Effect.fn("Bench.summarizeProfile")(function* (file: string, window: Window, n: number) {
  const fs = yield* FileSystem.FileSystem
  const profile = yield* Schema.decode(CpuProfile)(yield* fs.readFileString(file))
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]))
  const parent = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
  const label = (id: number) => {
    const frame = frames.get(id)
    if (frame === undefined) return "(unknown)"
    return `${frame.functionName || "(anonymous)"} ${
      frame.url === "" ? "" : `${shortUrl(frame.url)}:${frame.lineNumber + 1}:${frame.columnNumber + 1}`
    }`.trim()
  }
  const to = profile.endTime - window.endsBeforeEnd
  const from = to - window.length
  const self = new Map<string, number>()
  const inclusive = new Map<string, number>()
  const areas = new Map<string, number>()
  const buckets = new Map<string, number>()
  let total = 0
  let at = profile.startTime
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0
    if (at < from || at > to) return
    total += 1
    const frame = frames.get(id)
    bump(self, label(id))
    bump(areas, frame === undefined ? "(unknown)" : areaOf(frame.functionName, frame.url))
    if (frame !== undefined && frame.functionName !== "(idle)") bump(buckets, bucketOf(frame.functionName, frame.url))
    const seen = new Set<string>()
    for (let node: number | undefined = id; node !== undefined; node = parent.get(node)) seen.add(label(node))
    for (const key of seen) bump(inclusive, key)
  })
  const denominator = Math.max(total, 1)
  return {
    file,
    samples: total,
    busy: total - (self.get("(idle)") ?? 0),
    self: top(self, denominator, n),
    inclusive: top(new Map(Array.from(inclusive).filter(([key]) => !skip.has(key))), denominator, n),
    areas: top(areas, denominator, n),
    buckets: top(buckets, Math.max(total - (self.get("(idle)") ?? 0), 1), n)
  } satisfies ProfileSummary
})
