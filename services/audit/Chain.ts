import { Option } from "effect"
import type { AuditEntry, AuditRow, BreakReason } from "../../schema/audit/AuditRow.ts"
import type { Checkpoint, CheckpointHead } from "../../schema/audit/Checkpoint.ts"
import { hmacSha256, sameHex, sha256 } from "../Crypto.ts"

/** What the first row of a chain and the first checkpoint link to. */
export const GENESIS = "0".repeat(64)

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value) && !(value instanceof Date)

type Token = { readonly text: string } | { readonly value: unknown }

const scalar = (value: unknown) => JSON.stringify(value) ?? "null"

/** Past this depth the recursive writer hands over to the iterative one. */
const RECURSION_LIMIT = 256

class TooDeep {}
const tooDeep = new TooDeep()

/** The recursive writer: several times faster than the iterative one on the answers calls give (no token per value). */
const recursive = (value: unknown, depth: number): string => {
  if (depth > RECURSION_LIMIT) throw tooDeep
  if (Array.isArray(value)) {
    let out = "["
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i]
      out += (i > 0 ? "," : "") + (item === undefined ? "null" : recursive(item, depth + 1))
    }
    return out + "]"
  }
  if (isPlainObject(value)) {
    let out = "{"
    let first = true
    for (const [key, quoted] of sortedKeys(value)) {
      const item = value[key]
      if (item === undefined || typeof item === "function") continue
      out += `${first ? "" : ","}${quoted}:${recursive(item, depth + 1)}`
      first = false
    }
    return out + "}"
  }
  return typeof value === "number" && Number.isFinite(value) ? String(value) : scalar(value)
}

// The rows of one answer share their keys: each shape's keys are sorted and quoted once. Only small
// shapes are kept, and few of them: an input is the caller's, and a wide one must not stay in memory.
const MAX_SHAPES = 256
const MAX_SHAPE_KEYS = 64
const shapes = new Map<string, ReadonlyArray<readonly [string, string]>>()
const sortedKeys = (value: Record<string, unknown>): ReadonlyArray<readonly [string, string]> => {
  const keys = Object.keys(value)
  const quote = () => keys.sort().map((key) => [key, JSON.stringify(key)] as const)
  if (keys.length > MAX_SHAPE_KEYS) return quote()
  const shape = JSON.stringify(keys) // unambiguous, whatever the keys hold
  const known = shapes.get(shape)
  if (known !== undefined) return known
  const sorted = quote()
  if (shapes.size >= MAX_SHAPES) shapes.clear()
  shapes.set(shape, sorted)
  return sorted
}

/** What the native writer found of a value: every key of its objects, and how many objects. */
interface Found {
  readonly keys: Set<string>
  objects: number
}

/**
 * Collects the keys of every object in `value` and answers whether it is plain JSON data (arrays,
 * objects of Object.prototype or none, dates, scalars) no deeper than RECURSION_LIMIT.
 */
const plainKeys = (value: unknown, found: Found, depth: number): boolean => {
  if (typeof value !== "object" || value === null) return true
  if (depth > RECURSION_LIMIT) return false
  if (Array.isArray(value)) {
    for (const item of value) if (!plainKeys(item, found, depth + 1)) return false
    return true
  }
  const prototype: unknown = Object.getPrototypeOf(value)
  if (prototype !== Object.prototype && prototype !== null) return value instanceof Date
  found.objects++
  for (const key in value) {
    found.keys.add(key)
    if (!plainKeys((value as Record<string, unknown>)[key], found, depth + 1)) return false
  }
  return true
}

/**
 * JSON.stringify looks every key of its list up in every object: past this many lookups (objects ×
 * keys) the writers below are cheaper. Inputs are the caller's: many small objects beside one wide
 * one must not cost their product.
 */
const MAX_LOOKUPS = 1 << 16

/**
 * Plain JSON data written by JSON.stringify itself, given every key of the value in sorted order:
 * with a list of keys it writes each object's keys in the list's order. A key the list holds but an
 * object lacks is looked up on its prototype, so a value with a key Object.prototype also has (or a
 * `toJSON`, which JSON.stringify would call) is left to the writers below.
 */
const native = (value: unknown): string | undefined => {
  const found: Found = { keys: new Set(), objects: 0 }
  if (!plainKeys(value, found, 0) || found.objects * found.keys.size > MAX_LOOKUPS) return undefined
  for (const key of found.keys) if (key in Object.prototype || key === "toJSON") return undefined
  return JSON.stringify(value, [...found.keys].sort()) ?? "null"
}

/**
 * JSON with sorted keys: the same value always digests the same. Plain data is written natively;
 * anything else recursively while that is safe, and with an explicit stack past RECURSION_LIMIT
 * levels, so no depth of nesting can overflow the call stack. All three write the same text.
 */
export const canonicalJson = (value: unknown): string => {
  try {
    return native(value) ?? recursive(value, 0)
  } catch (error) {
    if (error === tooDeep) return iterative(value)
    throw error
  }
}

/** The iterative writer (an explicit stack), whatever the depth. */
export const iterative = (value: unknown): string => {
  const out: Array<string> = []
  const stack: Array<Token> = [{ value }]
  while (stack.length > 0) {
    const token = stack.pop()!
    if ("text" in token) {
      out.push(token.text)
      continue
    }
    const current = token.value
    if (Array.isArray(current)) {
      const items: Array<Token> = [{ text: "[" }]
      current.forEach((item, i) => {
        if (i > 0) items.push({ text: "," })
        items.push(item === undefined ? { text: "null" } : { value: item })
      })
      items.push({ text: "]" })
      for (let i = items.length - 1; i >= 0; i--) stack.push(items[i]!)
    } else if (isPlainObject(current)) {
      const items: Array<Token> = [{ text: "{" }]
      for (const key of Object.keys(current).sort()) {
        const item = current[key]
        if (item === undefined || typeof item === "function") continue
        items.push({ text: `${items.length > 1 ? "," : ""}${JSON.stringify(key)}:` }, { value: item })
      }
      items.push({ text: "}" })
      for (let i = items.length - 1; i >= 0; i--) stack.push(items[i]!)
    } else {
      out.push(scalar(current))
    }
  }
  return out.join("")
}

export const digestOf = (value: unknown) => sha256(canonicalJson(value))

/** The last link of a chain. */
export interface ChainHead {
  readonly seq: number
  readonly digest: string
}

const START: ChainHead = { seq: 0, digest: GENESIS }

export interface ChainLink extends AuditEntry {
  readonly chain: string
  readonly seq: number
  readonly prevDigest: string
}

// The trace id joined the row after rows without one were signed: it is hashed only when present, so those still verify.
const fields = (row: ChainLink) => {
  const kept = [
    row.chain,
    row.seq,
    row.requestId,
    row.at.toISOString(),
    row.workspaceId,
    row.principal,
    row.surface,
    row.toolId,
    row.plane,
    row.connectionId,
    row.inputDigest,
    row.outputDigest,
    row.outcome,
    row.errorTag,
    row.latencyMs,
    row.cost
  ]
  return row.traceId === undefined || row.traceId === null ? kept : [...kept, row.traceId]
}

/** digest = sha256(prev_digest ‖ row) */
export const linkDigest = (row: ChainLink) => sha256(`${row.prevDigest}\n${JSON.stringify(fields(row))}`)

const continueChain = (chain: string, head: ChainHead, entries: ReadonlyArray<AuditEntry>): Array<AuditRow> => {
  let prevDigest = head.digest
  let seq = head.seq
  return entries.map((entry) => {
    seq += 1
    const link: ChainLink = { ...entry, chain, seq, prevDigest }
    const digest = linkDigest(link)
    prevDigest = digest
    return { ...link, digest }
  })
}

/**
 * The only place rows are linked: each workspace's entries, in the order given, continue that
 * workspace's chain from its head (a chain without a head starts at GENESIS). Chains come out in
 * name order.
 */
export const link = (heads: ReadonlyMap<string, ChainHead>, entries: ReadonlyArray<AuditEntry>): ReadonlyArray<AuditRow> => {
  const byChain = new Map<string, Array<AuditEntry>>()
  for (const entry of entries) {
    const same = byChain.get(entry.workspaceId)
    if (same === undefined) byChain.set(entry.workspaceId, [entry])
    else same.push(entry)
  }
  return [...byChain.keys()].sort().flatMap((chain) => continueChain(chain, heads.get(chain) ?? START, byChain.get(chain) ?? []))
}

/** The chains the entries belong to, in name order (the order their locks are taken in). */
export const chainsOf = (entries: ReadonlyArray<{ readonly workspaceId: string }>) => [...new Set(entries.map((e) => e.workspaceId))].sort()

/** Why a row does not follow the row before it in the walk (null: a different chain, or none), if it does not. */
export const linkBreak = (
  row: AuditRow,
  previous: { readonly chain: string; readonly seq: number; readonly digest: string } | null
): { readonly reason: BreakReason; readonly detail: string } | null => {
  const head = previous !== null && previous.chain === row.chain ? previous : START
  if (row.seq !== head.seq + 1) return { reason: "sequence_gap", detail: `expected seq ${head.seq + 1}` }
  if (row.prevDigest !== head.digest) return { reason: "prev_digest_mismatch", detail: "the row does not link to the one before it" }
  if (linkDigest(row) !== row.digest) return { reason: "digest_mismatch", detail: "the row's content does not match its digest" }
  return null
}

export type UnsignedCheckpoint = Omit<Checkpoint, "signature">

/** The checkpoint after `last` (or the first one), stating the given heads. */
export const nextCheckpoint = (
  last: Option.Option<{ readonly seq: number; readonly signature: string }>,
  at: Date,
  heads: ReadonlyArray<CheckpointHead>
): UnsignedCheckpoint => ({
  seq: Option.match(last, { onNone: () => 1, onSome: (l) => l.seq + 1 }),
  at,
  heads: [...heads].sort((a, b) => (a.chain < b.chain ? -1 : a.chain > b.chain ? 1 : 0)),
  prevSignature: Option.match(last, { onNone: () => GENESIS, onSome: (l) => l.signature })
})

/** signature = HMAC-SHA256(key, seq ‖ at ‖ prev_signature ‖ heads sorted by chain) */
export const signCheckpoint = (key: Uint8Array, checkpoint: UnsignedCheckpoint) =>
  hmacSha256(
    key,
    canonicalJson({
      seq: checkpoint.seq,
      at: checkpoint.at.toISOString(),
      prevSignature: checkpoint.prevSignature,
      heads: [...checkpoint.heads].sort((a, b) => (a.chain < b.chain ? -1 : a.chain > b.chain ? 1 : 0))
    })
  )

export const signatureHolds = (key: Uint8Array, checkpoint: Checkpoint) => sameHex(checkpoint.signature, signCheckpoint(key, checkpoint))

/** Why a checkpoint does not follow `last` (or, with a key, was not signed with it), if it does not. */
export const checkpointBreak = (
  checkpoint: Checkpoint,
  last: Option.Option<{ readonly seq: number; readonly signature: string }>,
  key: Option.Option<Uint8Array>
): { readonly reason: BreakReason; readonly seq: number; readonly detail: string } | null => {
  const expected = nextCheckpoint(last, checkpoint.at, [])
  if (checkpoint.seq !== expected.seq) {
    return {
      reason: "checkpoint_missing",
      seq: expected.seq,
      detail: `checkpoint ${expected.seq} is missing (the next one is ${checkpoint.seq})`
    }
  }
  if (checkpoint.prevSignature !== expected.prevSignature) {
    return { reason: "checkpoint_missing", seq: checkpoint.seq, detail: `checkpoint ${checkpoint.seq} does not sign the one before it` }
  }
  if (Option.isSome(key) && !signatureHolds(key.value, checkpoint)) {
    return { reason: "checkpoint_forged", seq: checkpoint.seq, detail: `checkpoint ${checkpoint.seq} is not signed with the audit key` }
  }
  return null
}
