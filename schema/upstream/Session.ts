import { Schema } from "effect"
import { InstitutionId } from "./Banco.ts"
import { UpstreamName, UpstreamReason } from "./Errors.ts"

export const UpstreamSessionEvent = Schema.Struct({
  upstream: UpstreamName,
  institution: Schema.optional(InstitutionId),
  rut: Schema.String,
  sessionId: Schema.String,
  kind: Schema.Literal("start", "end", "rejected"),
  at: Schema.Number.annotations({ description: "Clock millis" }),
  reason: Schema.optional(UpstreamReason)
}).annotations({ identifier: "UpstreamSessionEvent", description: "A simulator's record of one session start, end or refused login" })
export type UpstreamSessionEvent = typeof UpstreamSessionEvent.Type
