import type { AuditEntry } from "../../schema/audit/AuditRow.ts"

/** The longest text an audit row stores in one field; longer text is cut and marked. */
export const MAX_FIELD = 200
const MARKER = "…[truncated]"
// NUL is refused by PostgreSQL; the other control characters would only hide what a row says.
const CONTROL = /[\u0000-\u001f\u007f]/g
const HAS_CONTROL = /[\u0000-\u001f\u007f]/

/** Control characters replaced with U+FFFD and at most MAX_FIELD characters, the cut marked. */
export const boundText = (text: string): string => {
  // most fields (ids, digests) are short and clean: answered as they are, with no new string
  if (text.length <= MAX_FIELD && !HAS_CONTROL.test(text)) return text
  const clean = text.replace(CONTROL, "\uFFFD")
  if (clean.length <= MAX_FIELD) return clean
  let cut = MAX_FIELD - MARKER.length
  const last = clean.charCodeAt(cut - 1)
  if (last >= 0xd800 && last <= 0xdbff) cut -= 1
  return clean.slice(0, cut) + MARKER
}

const boundOrNull = (text: string | null) => (text === null ? null : boundText(text))

/**
 * Every text of an entry bounded: what reaches the append-only log cannot grow it without limit. The
 * trace it names is `traceId` when given (in the same copy of the entry).
 */
export const boundEntry = (entry: AuditEntry, traceId: string | null | undefined = entry.traceId): AuditEntry => ({
  ...entry,
  requestId: boundText(entry.requestId),
  workspaceId: boundText(entry.workspaceId),
  principal: boundText(entry.principal),
  toolId: boundText(entry.toolId),
  connectionId: boundOrNull(entry.connectionId),
  inputDigest: boundText(entry.inputDigest),
  outputDigest: boundOrNull(entry.outputDigest),
  errorTag: boundOrNull(entry.errorTag),
  cost: boundText(entry.cost),
  ...(traceId === undefined ? {} : { traceId: boundOrNull(traceId) })
})
