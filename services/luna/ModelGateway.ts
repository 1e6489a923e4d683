import { Context, type Effect } from "effect"
import type { ModelNotConfigured, ModelUnavailable } from "../../schema/luna/LunaErrors.ts"
import type { ModelReply, ModelRequest } from "../../schema/luna/Model.ts"

export interface ModelGatewayApi {
  /** Fails when no model is configured, saying how to configure one: checked before a turn starts. */
  readonly ready: Effect.Effect<void, ModelNotConfigured>
  /** One model call: the primary model, and the fallback when the primary fails (never around a whole turn: that would re-run tools). */
  readonly complete: (request: ModelRequest) => Effect.Effect<ModelReply, ModelUnavailable | ModelNotConfigured>
}

/** Where Luna's model calls go: the configured endpoints (layers/LunaModel.ts) or a scripted model (replays, tests). */
export class ModelGateway extends Context.Tag("brein/luna/ModelGateway")<ModelGateway, ModelGatewayApi>() {}
