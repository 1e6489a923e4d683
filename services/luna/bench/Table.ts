import type { BenchReport, BriefMeters } from "../../../schema/luna/BenchMeters.ts"

/** The wall time goal of a run of the briefs (setup of the database excluded). */
export const WALL_GOAL_MS = 2_000

const COLUMNS = [
  ["brief", 34],
  ["expected", 17],
  ["outcome", 17],
  ["belt", 5],
  ["steps", 5],
  ["tools", 5],
  ["attempts", 13],
  ["anchors", 7],
  ["unres", 5],
  ["unanch", 6],
  ["redirect", 16],
  ["ms", 6],
  ["", 4]
] as const

const row = (cells: ReadonlyArray<string>) =>
  `  ${
    cells.map((cell, i) => (i >= 3 && i <= 9 || i === 11 ? cell.padStart(COLUMNS[i]?.[1] ?? 0) : cell.padEnd(COLUMNS[i]?.[1] ?? 0))).join(
      " "
    )
  }`.trimEnd()

const attemptsCell = (m: BriefMeters) =>
  m.attempts.length === 0
    ? "-"
    : m.attempts.map((a) => `${a.ok ? "ok" : `${a.unresolved_refs + a.unanchored_figures}✗`}`).join("→") +
      (m.repair === "none" ? "" : ` ${m.repair}`)

const line = (m: BriefMeters, file: string, millis: number) =>
  row([
    file.replace(/\.json$/, "").slice(0, 34),
    m.expected,
    m.outcome ?? "none",
    m.belt_violations_expected === m.belt_violations ? String(m.belt_violations) : `${m.belt_violations}≠${m.belt_violations_expected}`,
    String(m.steps),
    String(m.tool_calls),
    attemptsCell(m),
    String(m.final.anchors),
    String(m.final.unresolved_refs),
    String(m.final.unanchored_figures),
    m.limit_redirect === null ? "-" : m.redirect_tool ?? "NONE",
    millis.toFixed(0),
    m.ok ? "ok" : "FAIL"
  ])

/** The human-readable report: a row per brief, what each failed one missed, the totals and the wall time. */
export const reportTable = (
  report: BenchReport,
  rows: ReadonlyArray<{ readonly file: string; readonly millis: number }>,
  wallMillis: number
) => {
  const t = report.totals
  const failures = report.briefs.flatMap((m, i) => (m.ok ? [] : [`  ${rows[i]?.file ?? m.id}: ${m.problems.join("; ")}`]))
  const outcomes = Object.entries(t.outcomes).sort(([a], [b]) => a.localeCompare(b)).map(([k, n]) => `${n} ${k}`).join(", ")
  const seconds = (wallMillis / 1000).toFixed(2)
  return [
    row(COLUMNS.map(([name]) => name)),
    ...report.briefs.map((m, i) => line(m, rows[i]?.file ?? m.id, rows[i]?.millis ?? 0)),
    "",
    ...(failures.length === 0 ? [] : ["missed:", ...failures, ""]),
    `  briefs ${t.briefs}: ${t.passed} passed, ${t.failed} failed; outcomes ${outcomes}; outcome match ${t.outcome_match}/${t.briefs}`,
    `  final narrations: ${t.unresolved_refs} unresolved refs, ${t.unanchored_figures} unanchored figures`,
    `  belt violations ${t.belt_violations} (expected ${t.belt_violations_expected}); limits with a redirect ${t.limits_with_redirect}/${t.limits}`,
    `  attempt 1: ${t.attempt_1.ok}/${t.attempt_1.narrations} anchored, ${t.attempt_1.anchors} anchors, ${t.attempt_1.unanchored_figures} unanchored figures, ${t.attempt_1.unresolved_refs} unresolved refs`,
    `  attempt 2: ${t.attempt_2.ok}/${t.attempt_2.narrations} anchored, ${t.attempt_2.anchors} anchors; repairs taken ${t.repairs_taken}/${t.repairs}, lowering the anchors ${t.repairs_lowering_anchors}`,
    `  wall time: ${seconds} s for ${t.briefs} briefs (goal ≤ ${WALL_GOAL_MS / 1000} s: ${wallMillis <= WALL_GOAL_MS ? "met" : "MISSED"})`
  ].join("\n")
}
