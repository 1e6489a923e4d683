import { createHash } from "node:crypto"
import type { AuditEntry } from "../../schema/audit/AuditRow.ts"

export const GENESIS = "0".repeat(64)

export const sha256 = (text: string) => createHash("sha256").update(text).digest("hex")

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value) && !(value instanceof Date)

/** JSON with sorted keys: the same value always digests the same. */
export const canonicalJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? "null" : canonicalJson(v))).join(",")}]`
  if (!isPlainObject(value)) return JSON.stringify(value) ?? "null"
  const parts: Array<string> = []
  for (const key of Object.keys(value).sort()) {
    const item = value[key]
    if (item !== undefined && typeof item !== "function") parts.push(`${JSON.stringify(key)}:${canonicalJson(item)}`)
  }
  return `{${parts.join(",")}}`
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
