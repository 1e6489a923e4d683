import { Schema } from "effect"

export const LimitKind = Schema.Literal("fuera_de_alcance", "sin_conector", "pasos_agotados", "modelo_no_disponible").annotations({
  description: "fuera_de_alcance: no capability of Brein does it; sin_conector: it needs a connector that does not exist; " +
    "pasos_agotados: the turn reached its step cap; modelo_no_disponible: no model answered"
})
export type LimitKind = typeof LimitKind.Type

/** Where a limit turn sends the user: the nearest thing Brein can do, by a tool that exists. */
export const Redirect = Schema.Struct({
  tool: Schema.NullOr(Schema.String).annotations({ description: "The registry tool of the nearest capability (null: none)" }),
  message: Schema.String.annotations({ description: "What Luna can do instead, ref tokens stripped" })
})
export type Redirect = typeof Redirect.Type

const ShownPartial = Schema.optionalWith(Schema.Literal(true), { exact: true }).annotations({
  description: "Present when a text of the outcome had figures that could not be anchored and a fallback replaced it"
})

/** How a turn ended: exactly one of four outcomes. */
export const Outcome = Schema.Union(
  Schema.Struct({
    kind: Schema.Literal("cierre"),
    text: Schema.String.annotations({ description: "The anchored narrative, ref tokens stripped" }),
    partial: Schema.Boolean.annotations({ description: "true when figures that could not be anchored were left out" })
  }),
  Schema.Struct({ kind: Schema.Literal("responder"), text: Schema.String, partial: Schema.Boolean }),
  Schema.Struct({
    kind: Schema.Literal("proponer_decision"),
    tool: Schema.String.annotations({ description: "The tool the decision would run once a person approves it" }),
    input: Schema.Unknown,
    summary: Schema.String.annotations({ description: "What the person decides, ref tokens stripped" }),
    partial: ShownPartial
  }),
  Schema.Struct({
    kind: Schema.Literal("limite"),
    tipo: LimitKind,
    detalle: Schema.String.annotations({ description: "What cannot be done, ref tokens stripped" }),
    redirect: Redirect,
    partial: ShownPartial
  })
).annotations({ identifier: "Outcome" })
export type Outcome = typeof Outcome.Type
export type OutcomeKind = Outcome["kind"]

/** What one narration attempt measured: the validator's counts. */
export const AttemptMetrics = Schema.Struct({
  attempt: Schema.Int,
  anchors: Schema.Int,
  unresolved_refs: Schema.Int,
  unanchored_figures: Schema.Int,
  ok: Schema.Boolean
})
export type AttemptMetrics = typeof AttemptMetrics.Type

export const TurnMetrics = Schema.Struct({
  steps: Schema.Int.annotations({ description: "Model calls made in the turn" }),
  tool_calls: Schema.Int,
  belt_violations: Schema.Int.annotations({ description: "Calls to a tool outside the stage's belt (refused)" }),
  attempts: Schema.Array(AttemptMetrics),
  models: Schema.Array(Schema.String).annotations({ description: "The model that answered each step" })
})
export type TurnMetrics = typeof TurnMetrics.Type
