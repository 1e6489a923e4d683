import type { CitedResult } from "../../../schema/luna/Anchors.ts"
import type { AttemptTotals, BenchTotals, BriefMeters } from "../../../schema/luna/BenchMeters.ts"
import type { Brief } from "../../../schema/luna/Brief.ts"
import type { LunaEvent } from "../../../schema/luna/Events.ts"
import type { AttemptMetrics, Outcome, TurnMetrics } from "../../../schema/luna/Outcome.ts"
import type { Stage } from "../../../schema/tools/Definition.ts"
import { anchoredOnly, checkAnchors } from "../anchors/Validate.ts"
import type { ModelCall } from "../ReplayModel.ts"
import { resultsOf } from "../TurnInput.ts"

/** What one brief's turn left behind: its events, the model calls it made, the stage it ended on. */
export interface ReplayRun {
  readonly brief: Brief
  readonly events: ReadonlyArray<LunaEvent>
  readonly calls: ReadonlyArray<ModelCall>
  readonly stage: Stage
  readonly scripted: boolean
  /** Why the turn did not run (the brief's setup failed), if it did not. */
  readonly setupProblem: string | null
}

const NO_METRICS: TurnMetrics = { steps: 0, tool_calls: 0, belt_violations: 0, attempts: [], models: [] }

const anchorsIn = (narration: string, results: ReadonlyArray<CitedResult>) => checkAnchors({ narration, results }).anchors.length

/** The narration of attempt 1 when a repair was asked for: the close the model wrote just before the repair call. */
const firstAttempt = (calls: ReadonlyArray<ModelCall>): string | null => {
  const repair = calls.findIndex((call) => call.request.functions.length === 0)
  if (repair < 1) return null
  return calls[repair - 1]?.reply?.content ?? null
}

const limitOf = (outcome: Outcome | null) => (outcome?.kind === "limite" ? outcome : null)

/** The expectations of the brief this run missed, each in words. */
const problemsOf = (brief: Brief, m: Omit<BriefMeters, "problems" | "ok">, failure: string | null, scripted: boolean) => {
  const expected = brief.expected
  const problems: Array<string> = []
  if (failure !== null) problems.push(failure)
  if (!m.outcome_match) problems.push(`outcome ${m.outcome ?? "none"} (expected ${expected.outcome})`)
  if (m.final.unresolved_refs > 0) problems.push(`${m.final.unresolved_refs} unresolved refs in the final narration`)
  if (m.final.unanchored_figures > 0) problems.push(`${m.final.unanchored_figures} unanchored figures in the final narration`)
  if (m.belt_violations !== m.belt_violations_expected) {
    problems.push(`${m.belt_violations} belt violations (expected ${m.belt_violations_expected})`)
  }
  if (m.limit_redirect === false) problems.push("a limit without a redirect tool")
  if (m.repair_lowered_anchors) problems.push(`the repair kept ${m.final.anchors} anchors of attempt 1's ${m.first_anchored}`)
  if (m.replies.past_script > 0) problems.push("the script ran out")
  if (scripted && m.replies.used < m.replies.scripted) {
    problems.push(`${m.replies.scripted - m.replies.used} recorded replies were not used`)
  }
  const attempts = m.attempts.length
  if (expected.attempts !== undefined && attempts !== expected.attempts) {
    problems.push(`${attempts} attempts (expected ${expected.attempts})`)
  }
  if (expected.partial !== undefined && m.partial !== expected.partial) problems.push(`partial ${m.partial} (expected ${expected.partial})`)
  if (expected.stage !== undefined && m.stage !== expected.stage) problems.push(`ended on stage ${m.stage} (expected ${expected.stage})`)
  if (expected.limit !== undefined && m.limit !== expected.limit) problems.push(`limit ${m.limit ?? "none"} (expected ${expected.limit})`)
  if (expected.redirect_tool !== undefined && m.redirect_tool !== expected.redirect_tool) {
    problems.push(`redirect to ${m.redirect_tool ?? "nothing"} (expected ${expected.redirect_tool})`)
  }
  if (expected.tool !== undefined && m.decision_tool !== expected.tool) {
    problems.push(`a decision on ${m.decision_tool ?? "nothing"} (expected ${expected.tool})`)
  }
  return problems
}

/** The meters of one replay, from its log and its model calls. */
export const metersOf = (run: ReplayRun): BriefMeters => {
  const completed = run.events.find((event) => event.type === "turn.completed")
  const failedTurn = run.events.find((event) => event.type === "turn.failed")
  const outcome = completed?.type === "turn.completed" ? completed.outcome : null
  const metrics = completed?.type === "turn.completed" ? completed.metrics : NO_METRICS
  const results = resultsOf(run.events)
  const closing = [...run.events].reverse().find((event) => event.type === "message.assistant")
  const narration = closing?.type === "message.assistant" ? closing.narration : ""
  const final = checkAnchors({ narration, results })
  const first = firstAttempt(run.calls)
  const firstAnchored = first === null
    ? (metrics.attempts[0]?.ok === true ? metrics.attempts[0].anchors : 0)
    : anchorsIn(anchoredOnly(first, results).narration, results)
  const partial = outcome !== null && "partial" in outcome && outcome.partial === true
  const repairAsked = metrics.attempts.length > 1
  const limit = limitOf(outcome)
  const measured = {
    id: run.brief.id,
    expected: run.brief.expected.outcome,
    outcome: outcome?.kind ?? null,
    outcome_match: outcome?.kind === run.brief.expected.outcome,
    limit: limit?.tipo ?? null,
    redirect_tool: limit?.redirect.tool ?? null,
    decision_tool: outcome?.kind === "proponer_decision" ? outcome.tool : null,
    limit_redirect: limit === null ? null : limit.redirect.tool !== null,
    stage: run.stage,
    steps: metrics.steps,
    tool_calls: metrics.tool_calls,
    belt_violations: metrics.belt_violations,
    belt_violations_expected: run.brief.expected.belt_violations,
    attempts: metrics.attempts,
    final: {
      anchors: final.anchors.length,
      unresolved_refs: final.unresolved_refs.length,
      unanchored_figures: final.unanchored_figures.length
    },
    partial,
    repair: !repairAsked ? "none" as const : partial ? "refused" as const : "taken" as const,
    first_anchored: firstAnchored,
    repair_lowered_anchors: repairAsked && final.anchors.length < firstAnchored,
    replies: {
      scripted: run.scripted ? run.brief.replies.length : run.calls.filter((call) => call.reply !== null).length,
      used: run.calls.filter((call) => call.reply !== null).length,
      past_script: run.calls.filter((call) => call.reply === null).length
    }
  }
  const failure = run.setupProblem !== null
    ? `setup: ${run.setupProblem}`
    : failedTurn?.type === "turn.failed"
    ? `the turn failed: ${failedTurn.error.message}`
    : completed === undefined
    ? "the turn did not complete"
    : null
  const problems = problemsOf(run.brief, measured, failure, run.scripted)
  return { ...measured, problems, ok: problems.length === 0 }
}

const sum = (values: ReadonlyArray<number>) => values.reduce((a, b) => a + b, 0)

const attemptTotals = (attempts: ReadonlyArray<AttemptMetrics>): AttemptTotals => ({
  narrations: attempts.length,
  ok: attempts.filter((a) => a.ok).length,
  anchors: sum(attempts.map((a) => a.anchors)),
  unresolved_refs: sum(attempts.map((a) => a.unresolved_refs)),
  unanchored_figures: sum(attempts.map((a) => a.unanchored_figures))
})

/** The run's totals over its briefs. */
export const totalsOf = (briefs: ReadonlyArray<BriefMeters>): BenchTotals => {
  const outcomes: Record<string, number> = {}
  for (const b of briefs) outcomes[b.outcome ?? "none"] = (outcomes[b.outcome ?? "none"] ?? 0) + 1
  const limits = briefs.filter((b) => b.limit_redirect !== null)
  const repairs = briefs.filter((b) => b.repair !== "none")
  return {
    briefs: briefs.length,
    passed: briefs.filter((b) => b.ok).length,
    failed: briefs.filter((b) => !b.ok).length,
    outcome_match: briefs.filter((b) => b.outcome_match).length,
    outcomes,
    unresolved_refs: sum(briefs.map((b) => b.final.unresolved_refs)),
    unanchored_figures: sum(briefs.map((b) => b.final.unanchored_figures)),
    belt_violations: sum(briefs.map((b) => b.belt_violations)),
    belt_violations_expected: sum(briefs.map((b) => b.belt_violations_expected)),
    limits: limits.length,
    limits_with_redirect: limits.filter((b) => b.limit_redirect === true).length,
    repairs: repairs.length,
    repairs_taken: repairs.filter((b) => b.repair === "taken").length,
    repairs_lowering_anchors: briefs.filter((b) => b.repair_lowered_anchors).length,
    attempt_1: attemptTotals(briefs.flatMap((b) => b.attempts.filter((a) => a.attempt === 1))),
    attempt_2: attemptTotals(briefs.flatMap((b) => b.attempts.filter((a) => a.attempt === 2))),
    past_script: sum(briefs.map((b) => b.replies.past_script))
  }
}
