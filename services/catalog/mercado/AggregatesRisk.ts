import type { RiskList, RiskStatus, Severity } from "../../../schema/catalog/MercadoAggregates.ts"
import { inForce } from "./InForce.ts"

const SEVERITY_RANK: Record<Severity, number> = { critical: 3, high: 2, medium: 1, info: 0 }

/**
 * 69-B definitivo is critical (the issuer's invoices have no tax effect), presunto high; an
 * inhabilitación bars contracts (high), a multa does not (medium); every SAT 69 supuesto is medium.
 * A finding not in force (cleared, or its end date passed) is history: info.
 */
export const severityOf = (
  list: typeof RiskList.Type,
  status: typeof RiskStatus.Type,
  endsOn: string | null,
  today: string
): Severity => {
  if (!inForce({ status, endsOn }, today)) return "info"
  if (list === "sat_69b") return status === "definitivo" ? "critical" : "high"
  if (list === "sancion") return status === "inhabilitacion" ? "high" : "medium"
  return "medium"
}

export const highestOf = (severities: ReadonlyArray<Severity>): Severity | null =>
  severities.reduce<Severity | null>((top, s) => (top === null || SEVERITY_RANK[s] > SEVERITY_RANK[top] ? s : top), null)

export const isFlagging = (severity: Severity | null) => severity !== null && severity !== "info"

export const countBySeverity = (severities: ReadonlyArray<Severity>) => {
  const counts = { critical: 0, high: 0, medium: 0, info: 0 }
  for (const s of severities) counts[s]++
  return counts
}
