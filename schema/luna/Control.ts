import { Schema } from "effect"
import { maxLength, minLength } from "../Length.ts"
import { Stage } from "../tools/Definition.ts"
import { LimitKind } from "./Outcome.ts"

/**
 * The loop's own functions, offered to the model beside the belt. Their names cannot be registry ids
 * (a catalog id has no dot; a connector id has at least three segments).
 */
export const CONTROL = {
  decision: "luna.proponer_decision",
  limit: "luna.limite",
  stage: "luna.cambiar_etapa"
} as const

/** The longest a text of a control function may be (a decision's summary, a limit's detalle or redirect), as written and as shown. */
export const SHOWN_MAX = 500

const ShownText = Schema.String.pipe(minLength(1), maxLength(SHOWN_MAX))

export const ProposeDecision = Schema.Struct({
  tool: Schema.String.annotations({ description: "The tool (of the current stage) that the decision would run" }),
  input: Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({ description: "Its input" }),
  summary: ShownText.annotations({
    description: "What the person decides, in one sentence"
  })
}).annotations({ description: "Propose an action that needs a person's approval (it spends credits or writes the team's records)" })

export const DeclareLimit = Schema.Struct({
  tipo: LimitKind.pipe(Schema.pickLiteral("fuera_de_alcance", "sin_conector")),
  detalle: ShownText.annotations({ description: "What cannot be done, and why" }),
  redirect_tool: Schema.NullOr(Schema.String).annotations({ description: "The existing tool nearest to what was asked" }),
  redirect_message: ShownText.annotations({
    description: "What you can do instead, said to the user"
  })
}).annotations({ description: "End the turn: what was asked is outside what Brein can do; say what is nearest" })

export const ChangeStage = Schema.Struct({
  stage: Stage,
  reason: Schema.String.pipe(minLength(1), maxLength(300))
}).annotations({ description: "Move the session to another stage: its tools become the ones you see" })
