import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Config, Effect, Layer, Option } from "effect"
import { IndicadoresHttp } from "../services/connectors/indicadores/IndicadoresHttp.ts"
import { IndicadoresSimulator } from "../services/upstream/IndicadoresSource.ts"

/** INDICADORES_URL (a mindicador-shaped API, e.g. https://mindicador.cl) when set; otherwise the bundled simulator. */
export const IndicadoresLive = Layer.unwrapEffect(
  Config.option(Config.string("INDICADORES_URL")).pipe(
    Effect.map(Option.filter((url) => url.trim() !== "")),
    Effect.map(Option.match({
      onSome: (baseUrl) => IndicadoresHttp.layer({ baseUrl }).pipe(Layer.provide(NodeHttpClient.layerUndici)),
      onNone: () => IndicadoresSimulator.layer
    }))
  )
)
