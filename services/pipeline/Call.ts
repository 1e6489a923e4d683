import type { Clock, Effect, Option, Tracer } from "effect"
import type { AuditRow } from "../../schema/audit/AuditRow.ts"
import type { ConnectionId } from "../../schema/Ids.ts"
import type { CallContext } from "../../schema/Principal.ts"
import type { EnvelopeExtras } from "../../schema/tools/Envelope.ts"
import type { AuditStatus } from "../../schema/tools/Response.ts"
import type { BudgetError, HandlerError } from "../../schema/tools/ToolError.ts"
import type { ReadTaken } from "../budget/Reads.ts"
import type { DirectPolicy } from "../tools/Policy.ts"
import type { Decoded as DecodedCall, RegisteredTool } from "../tools/Registry.ts"
import type { CallInfo, Committed, Metered } from "../tools/Tool.ts"

/** What the executor knows of a call before any step: who asks, for what, since when. */
export interface Request {
  readonly toolId: string
  readonly rawInput: unknown
  readonly context: CallContext
  readonly requestId: string
  readonly startedNanos: bigint
  /** The call's span (Executor.call): every step's span is its child. */
  readonly span: Tracer.Span
  readonly clock: Clock.Clock
  /** The tracer that makes the steps' spans; none when tracing is off for the call. */
  readonly tracer: Option.Option<Tracer.Tracer>
}

export interface Resolved extends Request {
  readonly tool: RegisteredTool
}

export interface Decoded extends Resolved {
  readonly decoded: DecodedCall
}

/** How a bound call runs: its handler already holds what its policy grants (a read call, its persistence buffer). */
export type BoundRun = (info: CallInfo) => Effect.Effect<Committed<never>, HandlerError | BudgetError>

/** A call bound to what authorization granted: the connection, and for a read call its buffer's owner. */
export type Bound =
  | { readonly policy: "read"; readonly connectionId: ConnectionId; readonly run: BoundRun }
  | {
    readonly policy: DirectPolicy
    readonly connectionId: ConnectionId | null
    readonly run: BoundRun
    /** A credits call: what the budget step quotes and charges by. */
    readonly metered?: Metered<never>
  }

export interface Authorized extends Resolved {
  readonly bound: Bound
}

/** The budget's verdict: free, one read of the hour taken, a quote to answer, or credits to charge on delivery. */
export interface Budgeted extends Authorized {
  readonly charge: "unmetered" | "read" | "quote" | "credits"
  /** The read of the hour this call took, given back if the call answers an error. */
  readonly taken: Option.Option<ReadTaken>
}

export interface Ran extends Budgeted {
  /** The handler's answer, encoded. */
  readonly data: unknown
  readonly extras: EnvelopeExtras
  readonly afterCommit: Committed<never>["afterCommit"]
}

export interface Enveloped extends Ran {
  readonly envelope: EnvelopeExtras & { readonly data: unknown }
}

export interface Audited extends Enveloped {
  readonly status: AuditStatus
  readonly row: Option.Option<AuditRow>
}
