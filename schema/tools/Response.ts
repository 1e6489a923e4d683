import { Schema } from "effect"
import { Receipt } from "../audit/Checkpoint.ts"
import { SpentCost } from "../budget/Budget.ts"
import { Plane } from "./Definition.ts"

export const AuditStatus = Schema.Literal("recorded", "failed").annotations({
  description: "recorded only once the audit row is committed"
})
export type AuditStatus = typeof AuditStatus.Type

export const ResponseMeta = Schema.Struct({
  request_id: Schema.String,
  tool_id: Schema.String,
  plane: Plane,
  latency_ms: Schema.Number,
  audit_status: AuditStatus,
  receipt: Schema.optional(Receipt)
})
export type ResponseMeta = typeof ResponseMeta.Type

export const NextAction = Schema.Struct({
  tool: Schema.String,
  reason: Schema.String,
  input: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
})
export type NextAction = typeof NextAction.Type

export const ToolResponse = Schema.Struct({
  data: Schema.Unknown,
  next_actions: Schema.optional(Schema.Array(NextAction)),
  warnings: Schema.optional(Schema.Array(Schema.String)),
  hint: Schema.optional(Schema.String),
  cost: Schema.optional(SpentCost),
  meta: ResponseMeta
}).annotations({ identifier: "ToolResponse" })
export type ToolResponse = typeof ToolResponse.Type
