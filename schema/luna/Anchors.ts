import { Schema } from "effect"

export const CitedResult = Schema.Struct({
  ref: Schema.String.annotations({ description: "The ref the narration cites this result with ([[ref:ID]])" }),
  payload: Schema.Unknown.annotations({ description: "The tool result as the model saw it: its figures are the citable values" })
}).annotations({ identifier: "CitedResult" })
export type CitedResult = typeof CitedResult.Type

export const AnchorsInput = Schema.Struct({
  narration: Schema.String.annotations({ description: "Luna's text, with its [[ref:ID]] tokens still in" }),
  results: Schema.Array(CitedResult).annotations({ description: "The tool results of the turn" })
}).annotations({ identifier: "AnchorsInput" })
export type AnchorsInput = typeof AnchorsInput.Type

export const AnchorVia = Schema.Literal("value", "sum", "average", "percentage", "stated_percentage").annotations({
  description: "value: a harvested value; sum, average: of a column or of all the ref's values; percentage: a share ×100, " +
    "or part/whole×100 of a part and its whole in the ref; stated_percentage: a/b×100 of two figures anchored in the " +
    "same sentence (its ref is b's)"
})
export type AnchorVia = typeof AnchorVia.Type

export const Anchor = Schema.Struct({
  figure: Schema.String.annotations({ description: "The figure as written" }),
  ref: Schema.String,
  value: Schema.Number.annotations({ description: "The harvested or derived value the figure stands for" }),
  via: AnchorVia
}).annotations({ identifier: "Anchor" })
export type Anchor = typeof Anchor.Type

export const UnanchoredFigure = Schema.Struct({
  figure: Schema.String.annotations({ description: "The figure as written" }),
  sentence: Schema.String.annotations({ description: "Its sentence as displayed (ref tokens stripped)" }),
  ref: Schema.optionalWith(Schema.String, { exact: true }).annotations({
    description: "The token that covered it, when one did"
  })
}).annotations({ identifier: "UnanchoredFigure" })
export type UnanchoredFigure = typeof UnanchoredFigure.Type

export const AnchorsReport = Schema.Struct({
  ok: Schema.Boolean.annotations({ description: "No unresolved refs and no unanchored figures" }),
  anchors: Schema.Array(Anchor),
  unresolved_refs: Schema.Array(Schema.String).annotations({ description: "Cited refs no result has, once each" }),
  unanchored_figures: Schema.Array(UnanchoredFigure)
}).annotations({ identifier: "AnchorsReport" })
export type AnchorsReport = typeof AnchorsReport.Type
