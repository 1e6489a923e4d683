import { Context, type Effect } from "effect"
import type { Brief } from "../../schema/luna/Brief.ts"
import type { ModelReply, ModelRequest } from "../../schema/luna/Model.ts"
import type { Bindings } from "./bench/Placeholders.ts"

/** One model call of a replay: what the loop asked, what it got (null: nothing, see problem). */
export interface ModelCall {
  readonly request: ModelRequest
  readonly reply: ModelReply | null
  readonly problem: string | null
}

export interface ReplayModelApi {
  /** true when the replies come from the brief (a replay), false when a live model answers (a recording). */
  readonly scripted: boolean
  /** Gets ready for a brief's turn: a scripted model loads its replies, a recording one starts a new transcript. */
  readonly begin: (brief: Brief, bindings: Bindings) => Effect.Effect<void>
  /** The model calls since begin, in order. */
  readonly calls: Effect.Effect<ReadonlyArray<ModelCall>>
}

/** The model of a bench run, beside the ModelGateway the loop calls: the scripted one (replays) or a recording wrapper (--record). */
export class ReplayModel extends Context.Tag("brein/luna/ReplayModel")<ReplayModel, ReplayModelApi>() {}
