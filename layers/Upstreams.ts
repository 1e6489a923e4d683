import { Config, Effect, Layer } from "effect"
import { BancoSimulator } from "../services/upstream/BancoSimulator.ts"
import { SiiSimulator } from "../services/upstream/SiiSimulator.ts"

const mode = Config.literal("simulator", "live")("BREIN_UPSTREAMS").pipe(Config.withDefault("simulator" as const))

/**
 * The SII and bank clients. The simulators are the default (and the only ones in tests); a live
 * adapter implements the same SiiUpstream / BancoUpstream Tags and is chosen here, nowhere else.
 * This build ships none: the real portals are reachable only from production networks.
 */
export const UpstreamsLive = Layer.unwrapEffect(
  Effect.flatMap(mode, (selected) =>
    selected === "simulator"
      ? Effect.succeed(Layer.merge(SiiSimulator.layer, BancoSimulator.layer))
      : Effect.dieMessage("BREIN_UPSTREAMS=live: this build has no live SII or bank adapter; use the simulators"))
)
