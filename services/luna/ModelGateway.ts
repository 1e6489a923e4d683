import { Context, type Effect } from "effect"
import type { ModelNotConfigured, ModelUnavailable } from "../../schema/luna/LunaErrors.ts"
import type { ModelReply, ModelRequest } from "../../schema/luna/Model.ts"

export interface ModelGatewayApi {
  /** One model call: the primary model, and the fallback when the primary fails (never around a whole turn: that would re-run tools). */
  readonly complete: (request: ModelRequest) => Effect.Effect<ModelReply, ModelUnavailable | ModelNotConfigured>
}

/** Where Luna's model calls go: the configured endpoints (layers/LunaModel.ts) or a scripted model (replays, tests). */
export class ModelGateway extends Context.Tag("brein/luna/ModelGateway")<ModelGateway, ModelGatewayApi>() {}
