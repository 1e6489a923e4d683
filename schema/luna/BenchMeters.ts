import { Schema } from "effect"
import { Stage } from "../tools/Definition.ts"
import { ExpectedOutcome } from "./Brief.ts"
import { AttemptMetrics, LimitKind } from "./Outcome.ts"

export const NarrationMeters = Schema.Struct({
  anchors: Schema.Int,
  unresolved_refs: Schema.Int,
  unanchored_figures: Schema.Int
}).annotations({ description: "The anchoring validator's counts over the narration the turn closed with" })

export const Repair = Schema.Literal("none", "taken", "refused").annotations({
  description: "none: attempt 1 anchored; taken: the repair became the close; refused: the turn closed with an anchored part"
})

/** What one replay measured. No times and no ids of the run: two runs of the same briefs write the same bytes. */
export const BriefMeters = Schema.Struct({
  id: Schema.String,
  expected: ExpectedOutcome,
  outcome: Schema.NullOr(ExpectedOutcome).annotations({ description: "null when the turn failed" }),
  outcome_match: Schema.Boolean,
  limit: Schema.NullOr(LimitKind),
  redirect_tool: Schema.NullOr(Schema.String),
  decision_tool: Schema.NullOr(Schema.String).annotations({ description: "The tool a proposed decision would run" }),
  limit_redirect: Schema.NullOr(Schema.Boolean).annotations({
    description: "Limit turns: whether the turn redirected to a tool that exists (null for other outcomes)"
  }),
  stage: Stage,
  steps: Schema.Int,
  tool_calls: Schema.Int,
  belt_violations: Schema.Int,
  belt_violations_expected: Schema.Int,
  attempts: Schema.Array(AttemptMetrics),
  final: NarrationMeters,
  partial: Schema.Boolean,
  repair: Repair,
  first_anchored: Schema.Int.annotations({ description: "Anchors of attempt 1's anchored part (what a repair must keep)" }),
  repair_lowered_anchors: Schema.Boolean,
  replies: Schema.Struct({
    scripted: Schema.Int,
    used: Schema.Int,
    past_script: Schema.Int.annotations({ description: "Model calls after the script ran out" })
  }),
  problems: Schema.Array(Schema.String).annotations({ description: "Each expectation the replay missed" }),
  ok: Schema.Boolean
}).annotations({ identifier: "BriefMeters" })
export type BriefMeters = typeof BriefMeters.Type

const AttemptTotals = Schema.Struct({
  narrations: Schema.Int,
  ok: Schema.Int,
  anchors: Schema.Int,
  unresolved_refs: Schema.Int,
  unanchored_figures: Schema.Int
})
export type AttemptTotals = typeof AttemptTotals.Type

export const BenchTotals = Schema.Struct({
  briefs: Schema.Int,
  passed: Schema.Int,
  failed: Schema.Int,
  outcome_match: Schema.Int,
  outcomes: Schema.Record({ key: Schema.String, value: Schema.Int }).annotations({ description: "Turns by the outcome they came to" }),
  unresolved_refs: Schema.Int,
  unanchored_figures: Schema.Int,
  belt_violations: Schema.Int,
  belt_violations_expected: Schema.Int,
  limits: Schema.Int,
  limits_with_redirect: Schema.Int,
  repairs: Schema.Int,
  repairs_taken: Schema.Int,
  repairs_lowering_anchors: Schema.Int,
  attempt_1: AttemptTotals,
  attempt_2: AttemptTotals,
  past_script: Schema.Int
})
export type BenchTotals = typeof BenchTotals.Type

export const BenchReport = Schema.Struct({
  briefs: Schema.Array(BriefMeters),
  totals: BenchTotals
}).annotations({ identifier: "BenchReport" })
export type BenchReport = typeof BenchReport.Type
