import { Schema } from "effect"
import { BoardItem } from "../catalog/Session.ts"
import { minLength } from "../Length.ts"
import { Plan, Stage } from "../tools/Definition.ts"
import { ModelReply } from "./Model.ts"
import { LimitKind } from "./Outcome.ts"

/**
 * Where a replay refers to a value the run makes anew (a list's, sequence's or mailbox's id), it writes
 * `{{NAME.path}}`: rN is the session's result rN, sN the answer of the setup's call N, mN its mailbox N.
 * Template variables of the tools ({{first_name}}) are left alone.
 */
export const PLACEHOLDER_HELP =
  "{{r2.data.list_id}}: the list_id of result r2 as the model read it; {{s1.data.sequence_id}}: of setup call 1's answer; {{m1.id}}: setup mailbox 1's id"

export const SetupCall = Schema.Struct({
  tool: Schema.String.annotations({ description: "A registry tool id" }),
  input: Schema.Unknown.annotations({ description: `Its input; strings may hold placeholders (${PLACEHOLDER_HELP})` })
}).annotations({
  description: "A call made before the turn, through the executor, in the session (its answer is not a result of the turn)"
})

export const SetupMailbox = Schema.Struct({
  email: Schema.String,
  display_name: Schema.String,
  daily_cap: Schema.optionalWith(Schema.Int, { exact: true }),
  min_spacing_seconds: Schema.optionalWith(Schema.Int, { exact: true })
}).annotations({ description: "A sender mailbox of the workspace, with its domain authenticated" })

export const BriefSetup = Schema.Struct({
  stage: Schema.optionalWith(Stage, { exact: true }).annotations({ description: "The session's stage (buscando by default)" }),
  plan: Schema.optionalWith(Plan, { exact: true }).annotations({ description: "The workspace's plan (paid by default)" }),
  credits: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 1_000_000)), { exact: true }).annotations({
    description: "Credits granted on top of the plan's opening credits"
  }),
  mailboxes: Schema.optionalWith(Schema.Array(SetupMailbox), { exact: true }),
  calls: Schema.optionalWith(Schema.Array(SetupCall), { exact: true }),
  board: Schema.optionalWith(Schema.Array(BoardItem), { exact: true }).annotations({
    description: "Items shown on the session's board before the turn (strings may hold placeholders)"
  }),
  selected: Schema.optionalWith(Schema.Array(Schema.String), { exact: true }).annotations({
    description: "The ids of board items the user selected"
  })
})
export type BriefSetup = typeof BriefSetup.Type

export const ExpectedOutcome = Schema.Literal("cierre", "responder", "limite", "proponer_decision")
export type ExpectedOutcome = typeof ExpectedOutcome.Type

export const BriefExpected = Schema.Struct({
  outcome: ExpectedOutcome,
  belt_violations: Schema.Int.annotations({ description: "Calls to a tool outside the stage's belt the turn makes (refused)" }),
  attempts: Schema.optionalWith(Schema.Literal(1, 2), { exact: true }).annotations({
    description: "Narration attempts: 2 when the first does not anchor and a repair is asked for"
  }),
  partial: Schema.optionalWith(Schema.Boolean, { exact: true }).annotations({
    description: "Whether the close leaves out figures it could not anchor"
  }),
  stage: Schema.optionalWith(Stage, { exact: true }).annotations({ description: "The session's stage when the turn ends" }),
  limit: Schema.optionalWith(LimitKind, { exact: true }).annotations({ description: "The limit's tipo (limite turns)" }),
  redirect_tool: Schema.optionalWith(Schema.String, { exact: true }).annotations({
    description: "The tool a limit turn redirects to"
  }),
  tool: Schema.optionalWith(Schema.String, { exact: true }).annotations({ description: "The tool a proposed decision would run" })
})
export type BriefExpected = typeof BriefExpected.Type

/** A replay: what the user wants, the session it starts from, the model's recorded replies and what the turn must come to. */
export const Brief = Schema.Struct({
  id: Schema.String.pipe(Schema.pattern(/^[a-z0-9][a-z0-9-]{0,63}$/)).annotations({
    description: "Lower-case words joined by -, unique among the briefs (the file is NN-id.json)"
  }),
  title: Schema.String,
  brief: Schema.String.annotations({ description: "What the user wants, in words" }),
  setup: BriefSetup,
  message: Schema.String.pipe(minLength(1)).annotations({ description: "The user's message" }),
  replies: Schema.Array(ModelReply).annotations({
    description: "The model's recorded replies, in order (tools by registry id, arguments as JSON text; placeholders allowed: " +
      `${PLACEHOLDER_HELP}); a repair of the narration is the reply after the close`
  }),
  expected: BriefExpected
}).annotations({ identifier: "Brief" })
export type Brief = typeof Brief.Type

/** How a brief file is read and written: JSON text. */
export const BriefJson = Schema.parseJson(Brief, { space: 2 })
