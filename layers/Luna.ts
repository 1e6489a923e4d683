import { Layer } from "effect"
import { Luna } from "../services/luna/Luna.ts"
import type { ModelGateway } from "../services/luna/ModelGateway.ts"
import { ModelGatewayLive } from "./LunaModel.ts"

/** Luna over the shared registry and executor, with the given model (a scripted one in replays and tests). */
export const lunaWith = <E, R>(gateway: Layer.Layer<ModelGateway, E, R>) => Luna.Default.pipe(Layer.provide(gateway))

/** Luna with the configured model (LUNA_MODEL_BASE_URL …): without one, a turn is refused with ModelNotConfigured. */
export const LunaLive = lunaWith(ModelGatewayLive)
