import { createHash, createHmac, timingSafeEqual } from "node:crypto"
import type { AuditEntry } from "../../schema/audit/AuditRow.ts"
import type { Checkpoint } from "../../schema/audit/Checkpoint.ts"

export const GENESIS = "0".repeat(64)

export const sha256 = (text: string) => createHash("sha256").update(text).digest("hex")

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value) && !(value instanceof Date)

type Token = { readonly text: string } | { readonly value: unknown }

const scalar = (value: unknown) => JSON.stringify(value) ?? "null"

/**
 * JSON with sorted keys: the same value always digests the same. Iterative (an explicit stack), so
 * no depth of nesting can overflow the call stack.
 */
export const canonicalJson = (value: unknown): string => {
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

export interface ChainLink extends AuditEntry {
  readonly chain: string
  readonly seq: number
  readonly prevDigest: string
}

const fields = (row: ChainLink) => [
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

/** digest = sha256(prev_digest ‖ row) */
export const linkDigest = (row: ChainLink) => sha256(`${row.prevDigest}\n${JSON.stringify(fields(row))}`)

export const chainEntries = (
  chain: string,
  last: { readonly seq: number; readonly digest: string },
  entries: ReadonlyArray<AuditEntry>
) => {
  let prevDigest = last.digest
  let seq = last.seq
  return entries.map((entry) => {
    seq += 1
    const link: ChainLink = { ...entry, chain, seq, prevDigest }
    const digest = linkDigest(link)
    prevDigest = digest
    return { ...link, digest }
  })
}

export type UnsignedCheckpoint = Omit<Checkpoint, "signature">

/** signature = HMAC-SHA256(key, seq ‖ at ‖ prev_signature ‖ heads sorted by chain) */
export const signCheckpoint = (key: Uint8Array, checkpoint: UnsignedCheckpoint) =>
  createHmac("sha256", key)
    .update(canonicalJson({
      seq: checkpoint.seq,
      at: checkpoint.at.toISOString(),
      prevSignature: checkpoint.prevSignature,
      heads: [...checkpoint.heads].sort((a, b) => (a.chain < b.chain ? -1 : a.chain > b.chain ? 1 : 0))
    }))
    .digest("hex")

export const signatureHolds = (key: Uint8Array, checkpoint: Checkpoint) => {
  const expected = Buffer.from(signCheckpoint(key, checkpoint), "hex")
  const given = Buffer.from(checkpoint.signature, "hex")
  return given.length === expected.length && timingSafeEqual(given, expected)
}
