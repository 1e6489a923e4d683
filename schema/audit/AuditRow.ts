import { Schema } from "effect"
import { Surface } from "../Principal.ts"
import { Plane } from "../tools/Definition.ts"

export const Outcome = Schema.Literal("ok", "error")

/** What the executor hands to the audit log: digests of the payloads, never the payloads. */
export const AuditEntry = Schema.Struct({
  requestId: Schema.String,
  at: Schema.Date,
  workspaceId: Schema.String,
  principal: Schema.String,
  surface: Surface,
  toolId: Schema.String,
  plane: Plane,
  connectionId: Schema.NullOr(Schema.String),
  inputDigest: Schema.String,
  outputDigest: Schema.NullOr(Schema.String),
  outcome: Outcome,
  errorTag: Schema.NullOr(Schema.String),
  latencyMs: Schema.Number,
  cost: Schema.String,
  traceId: Schema.optionalWith(
    Schema.NullOr(Schema.String).annotations({
      description: "The trace of the call that wrote the row; null for rows written before traces were kept"
    }),
    { exact: true }
  )
})
export type AuditEntry = typeof AuditEntry.Type

export const AuditRow = Schema.Struct({
  ...AuditEntry.fields,
  at: Schema.DateFromSelf,
  chain: Schema.String,
  seq: Schema.Union(Schema.Number, Schema.NumberFromString),
  prevDigest: Schema.String,
  digest: Schema.String
})
export type AuditRow = typeof AuditRow.Type

export const BreakReason = Schema.Literal(
  "digest_mismatch",
  "prev_digest_mismatch",
  "sequence_gap",
  "chain_truncated",
  "chain_deleted",
  "rechained",
  "checkpoint_forged",
  "checkpoint_missing"
)
export type BreakReason = typeof BreakReason.Type

export const ChainBreak = Schema.Struct({
  /** The chain, or `audit_checkpoint` for a break in the checkpoints themselves. */
  chain: Schema.String,
  seq: Schema.Number,
  requestId: Schema.NullOr(Schema.String),
  reason: BreakReason,
  detail: Schema.String
})
export type ChainBreak = typeof ChainBreak.Type

export const CheckpointReport = Schema.Struct({
  count: Schema.Number,
  signatures: Schema.Literal("verified", "unchecked"),
  witness: Schema.Literal("matched", "absent"),
  uncovered: Schema.Number
})
export type CheckpointReport = typeof CheckpointReport.Type

export const VerifyReport = Schema.Struct({
  ok: Schema.Boolean,
  chains: Schema.Number,
  rows: Schema.Number,
  firstBreak: Schema.NullOr(ChainBreak),
  checkpoints: CheckpointReport
})
export type VerifyReport = typeof VerifyReport.Type
