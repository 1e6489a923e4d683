import { createHash } from "node:crypto"
import type { AuditEntry } from "../../schema/audit/AuditRow.ts"

export const GENESIS = "0".repeat(64)

export const sha256 = (text: string) => createHash("sha256").update(text).digest("hex")

const sortKeys = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(sortKeys)
  if (value !== null && typeof value === "object" && !(value instanceof Date)) {
    return Object.fromEntries(
      Object.keys(value).sort().map((key) => [key, sortKeys((value as Record<string, unknown>)[key])])
    )
  }
  return value
}

/** JSON with sorted keys: the same value always digests the same. */
export const canonicalJson = (value: unknown): string => JSON.stringify(sortKeys(value)) ?? "null"

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
