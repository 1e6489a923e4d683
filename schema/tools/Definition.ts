import { Schema } from "effect"

export const Plane = Schema.Literal("action", "read").annotations({
  description: "action persists nothing of business; read syncs an external system into the cache"
})
export type Plane = typeof Plane.Type

export const Plan = Schema.Literal("free", "paid")
export type Plan = typeof Plan.Type

export const Stage = Schema.Literal("buscando", "prospectando", "con_lista")
export type Stage = typeof Stage.Type
export const STAGES: ReadonlyArray<Stage> = Stage.literals
export const MAX_VISIBLE_TOOLS = 20

export const Level = Schema.Literal(0, 1, 2).annotations({
  description: "approval level: 0 runs with undo, 1 preview card, 2 hard gate (spend or irreversible)"
})
export type Level = typeof Level.Type

export const Hints = Schema.Struct({
  readOnly: Schema.Boolean,
  destructive: Schema.Boolean,
  idempotent: Schema.Boolean,
  openWorld: Schema.Boolean
})
export type Hints = typeof Hints.Type

export const Cost = Schema.Union(
  Schema.Struct({ kind: Schema.Literal("free") }),
  Schema.Struct({ kind: Schema.Literal("read") }).annotations({
    description: "counts toward the workspace's hourly read ceiling"
  }),
  Schema.Struct({
    kind: Schema.Literal("credits"),
    unit: Schema.String,
    unitPrice: Schema.Int.pipe(Schema.positive())
  })
)
export type Cost = typeof Cost.Type

export const CallPolicy = Schema.Literal("read", "pure", "spends", "writes").annotations({
  description: "how a call is audited: read commits its cache writes and audit row together, then waits for the sync; " +
    "pure (readOnly, free) answers even when its audit row cannot be written (audit_status failed); " +
    "spends (readOnly, costs) fails without its audit row; writes commits its effects and audit row together"
})
export type CallPolicy = typeof CallPolicy.Type

export const ToolIdShape = {
  connector: /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*){2,}$/,
  catalog: /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/
} as const

export const Exposure = Schema.Literal("abstracted").annotations({
  description: "abstracted: the answer abstracts a data set for the model; its HTTP responses carry X-Driftless-Model-Exposure"
})
export type Exposure = typeof Exposure.Type

export const EXPOSURE_HEADER = "x-driftless-model-exposure"

export const Descriptor = Schema.Struct({
  id: Schema.String,
  connector: Schema.NullOr(Schema.String),
  family: Schema.String,
  label: Schema.String,
  description: Schema.String,
  plane: Plane,
  plan: Plan,
  hints: Hints,
  cost: Cost,
  level: Level,
  stages: Schema.Array(Stage),
  external: Schema.Boolean,
  scope: Schema.NullOr(Schema.String).annotations({
    description: "for .consultar tools: what persisted data the tool reads"
  }),
  quoted: Schema.Boolean,
  aggregate: Schema.Boolean.annotations({
    description: "its answer aggregates figures: it carries each total with its average and a ref to cite them"
  }),
  exposure: Schema.optionalWith(Exposure, { exact: true })
})
export type Descriptor = typeof Descriptor.Type

export const JsonSchemaObject = Schema.Record({ key: Schema.String, value: Schema.Unknown })

export const ToolDocument = Schema.Struct({
  ...Descriptor.fields,
  policy: CallPolicy,
  requiresConnection: Schema.Boolean,
  inputSchema: JsonSchemaObject,
  outputSchema: JsonSchemaObject
}).annotations({ identifier: "ToolDocument", description: "A tool's public definition" })
export type ToolDocument = typeof ToolDocument.Type
