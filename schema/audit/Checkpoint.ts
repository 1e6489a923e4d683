import { Schema } from "effect"
import { VerifyReport } from "./AuditRow.ts"

export const CheckpointHead = Schema.Struct({
  chain: Schema.String,
  seq: Schema.Number,
  digest: Schema.String
})
export type CheckpointHead = typeof CheckpointHead.Type

/** A signed statement of chain heads; each signs the previous one's signature, in one global sequence. */
export const Checkpoint = Schema.Struct({
  seq: Schema.Union(Schema.Number, Schema.NumberFromString),
  at: Schema.DateFromSelf,
  heads: Schema.Array(CheckpointHead),
  prevSignature: Schema.String,
  signature: Schema.String
})
export type Checkpoint = typeof Checkpoint.Type

/** What a client keeps of its call's answer to prove later that the call was recorded. */
export const Receipt = Schema.Struct({
  chain: Schema.String,
  seq: Schema.Number,
  digest: Schema.String
}).annotations({ description: "The call's audit row: its chain, position and digest; check it with `brein audit verify --receipt`" })
export type Receipt = typeof Receipt.Type

export const ReceiptCheck = Schema.Struct({
  requestId: Schema.String,
  status: Schema.Literal("recorded", "not_found", "digest_differs"),
  chain: Schema.NullOr(Schema.String),
  seq: Schema.NullOr(Schema.Number),
  /** The row is at or below a signed checkpoint of its chain. */
  covered: Schema.Boolean,
  /** The trace of the call that wrote the row, when it names one. */
  traceId: Schema.NullOr(Schema.String),
  report: VerifyReport
})
export type ReceiptCheck = typeof ReceiptCheck.Type
