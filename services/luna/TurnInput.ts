import type { Schema } from "effect"
import type { BoardItem } from "../../schema/catalog/Session.ts"
import { ChangeStage, CONTROL, DeclareLimit, ProposeDecision } from "../../schema/luna/Control.ts"
import type { LunaEvent } from "../../schema/luna/Events.ts"
import type { ModelFunction, ModelMessage } from "../../schema/luna/Model.ts"
import type { Stage } from "../../schema/tools/Definition.ts"
import { toJsonSchema } from "../../schema/tools/JsonSchema.ts"
import type { RegisteredTool } from "../tools/Registry.ts"
import { standalone } from "./FunctionNames.ts"
import { modelView } from "./ModelView.ts"

/** A tool result as Luna holds it: what the narration cites it by, and what the tool answered (meta left out). */
export interface CitableResult {
  readonly ref: string
  readonly toolId: string
  readonly payload: unknown
}

/** What a turn starts from: everything compiled from the session, never from a list inside Luna. */
export interface TurnInput {
  readonly stage: Stage
  readonly belt: ReadonlyArray<RegisteredTool>
  readonly board: { readonly items: ReadonlyArray<BoardItem>; readonly selected: ReadonlyArray<string> }
  /** Session-only facts: the results of earlier turns, still citable by their refs. */
  readonly facts: ReadonlyArray<CitableResult>
  /** What the Mercado data set covers (market_capabilities, compiled in: the model never calls it). */
  readonly coverage: CitableResult | null
}

const FACT_CHARS = 1500
const FACTS_SHOWN = 12

const brief = (value: unknown, chars: number) => {
  const text = JSON.stringify(modelView(value))
  return text.length <= chars ? text : `${text.slice(0, chars)}…`
}

const MANUAL = [
  "Eres Luna, la asistente de Brein: empresas y personas, CRM, Cerebro (memoria del equipo), cuenta, secuencias de correo y Mercado (compras públicas de México).",
  `Solo puedes usar las herramientas que ves: son las de la etapa actual. Si lo pedido no cae en ninguna, termina con ${
    standalone(CONTROL.limit)
  } y ofrece lo más cercano que sí existe.`,
  "Toda cifra que digas viene de un resultado de herramienta y lleva su cita justo después: [[ref:ID]], con el ref del resultado. No calcules cifras que no puedas citar; los agregados traen total y promedio.",
  `Lo que gasta créditos o escribe en los registros del equipo no se ejecuta: propónlo con ${
    standalone(CONTROL.decision)
  } y una persona decide.`,
  "Cuando termines, responde con el texto final, breve y en español."
].join("\n")

/** The system message: the manual, the stage and its tools, the board, the facts and the Mercado coverage. */
export const systemMessage = (input: TurnInput): ModelMessage => {
  const board = input.board.items.length === 0
    ? "El tablero está vacío."
    : `Tablero (${input.board.items.length} elementos, ${input.board.selected.length} seleccionados):\n` +
      input.board.items.slice(0, 50).map((item) =>
        `- ${item.kind} ${item.id}: ${item.label} [ref ${item.ref}]${input.board.selected.includes(item.id) ? " (seleccionado)" : ""}`
      ).join("\n")
  const facts = input.facts.length === 0
    ? "Sin resultados anteriores en esta sesión."
    : "Resultados anteriores de la sesión (citables por su ref):\n" +
      input.facts.slice(-FACTS_SHOWN).map((fact) => `- ref ${fact.ref} (${fact.toolId}): ${brief(fact.payload, FACT_CHARS)}`).join("\n")
  const coverage = input.coverage === null
    ? ""
    : `\nCobertura de Mercado [ref ${input.coverage.ref}]: ${brief(input.coverage.payload, 4000)}`
  return {
    role: "system",
    content: `${MANUAL}\n\nEtapa: ${input.stage}. Herramientas: ${
      input.belt.map((t) => t.descriptor.id).join(", ")
    }.\n${board}\n${facts}${coverage}`
  }
}

const control = (tool: string, schema: Schema.Schema.AnyNoContext, description: string): ModelFunction => ({
  tool,
  description,
  parameters: toJsonSchema(schema)
})

/** What the model may call: the belt, then the loop's control functions. */
export const functionsOf = (belt: ReadonlyArray<RegisteredTool>): ReadonlyArray<ModelFunction> => [
  ...belt.map((tool) => ({
    tool: tool.descriptor.id,
    description: `${tool.descriptor.label}: ${tool.descriptor.description}`,
    parameters: tool.document.inputSchema
  })),
  control(CONTROL.decision, ProposeDecision, "Propose an action a person must approve (spending credits, writing the team's records)"),
  control(CONTROL.limit, DeclareLimit, "End the turn: outside what Brein can do; name the nearest existing capability"),
  control(
    CONTROL.stage,
    ChangeStage,
    "Move the session to another stage (buscando: Mercado; prospectando: companies, people, CRM; con_lista: lists, reveal, sequences)"
  )
]

/** Earlier turns as the model saw them: each user message and the text Luna closed with. */
export const historyOf = (events: ReadonlyArray<LunaEvent>): ReadonlyArray<ModelMessage> =>
  events.flatMap((event): ReadonlyArray<ModelMessage> => {
    if (event.type === "message.user") return [{ role: "user", content: event.text }]
    if (event.type === "message.assistant") return [{ role: "assistant", content: event.narration }]
    return []
  })

/** The session's citable results so far, in log order. */
export const resultsOf = (events: ReadonlyArray<LunaEvent>): ReadonlyArray<CitableResult> =>
  events.flatMap((event) =>
    event.type === "tool" && event.state === "output-available" ? [{ ref: event.ref, toolId: event.tool_id, payload: event.output }] : []
  )
