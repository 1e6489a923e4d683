import { HttpServer } from "@effect/platform"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Config, Context, Effect, Layer, Option, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import { createServer } from "node:http"
import { Milliseconds, setting, TcpPort, WholeNumberFromString } from "../schema/Setting.ts"
import { CrmDirectory } from "../services/catalog/crm/CrmDirectory.ts"
import { CrmClient, type CrmRetryOptions, CrmSettings } from "../services/crm/CrmClient.ts"
import {
  CRM_SIMULATOR_DEFAULTS,
  CrmSimulatorControl,
  type CrmSimulatorOptions,
  CrmSimulatorServer
} from "../services/simulators/crm/CrmSimulatorServer.ts"
import { CrmSimulatorStore } from "../services/simulators/crm/CrmSimulatorStore.ts"
import { simulatorToken } from "../services/simulators/crm/CrmToken.ts"
import { timeScaleConfig } from "../services/upstream/SimulatorClock.ts"

export interface CrmSimulatedOptions extends Omit<CrmSimulatorOptions, "secret"> {
  readonly secret?: Redacted.Redacted<string>
  /** 0 (the default) takes any free port on 127.0.0.1. */
  readonly port?: number
  readonly timeout?: Context.Tag.Service<CrmSettings>["timeout"]
  readonly retry?: CrmRetryOptions
}

const baseUrlOf = HttpServer.addressWith((address) =>
  Effect.succeed(address._tag === "UnixAddress" ? `unix://${address.path}` : `http://127.0.0.1:${address.port}`)
)

const clientOver = (settings: Context.Tag.Service<CrmSettings>) =>
  CrmClient.Default.pipe(Layer.provide(Layer.succeed(CrmSettings, settings)), Layer.provide(NodeHttpClient.layerUndici))

/**
 * The HubSpot-shaped simulator on a local port (its state in this database) and the client pointed
 * at it, each workspace with a token the simulator signed for the workspace's own portal.
 */
export const crmSimulated = (options: CrmSimulatedOptions = {}) => {
  const secret = options.secret ?? Redacted.make(randomBytes(32).toString("hex"))
  const server = CrmSimulatorServer.layer({ ...options, secret }).pipe(
    Layer.provide(CrmSimulatorStore.Default),
    Layer.provideMerge(NodeHttpServer.layer(createServer, { port: options.port ?? 0, host: "127.0.0.1" }))
  )
  const client = Layer.unwrapEffect(Effect.map(baseUrlOf, (baseUrl) =>
    clientOver({
      baseUrl,
      tokenFor: (workspaceId) => simulatorToken(secret, workspaceId),
      ...(options.timeout === undefined ? {} : { timeout: options.timeout }),
      ...(options.retry === undefined ? {} : { retry: options.retry })
    })))
  // The simulator's HttpServer stays inside: the service's own server is another one.
  return Layer.effectContext(Effect.map(Effect.context<CrmClient | CrmSimulatorControl>(), Context.pick(CrmClient, CrmSimulatorControl)))
    .pipe(
      Layer.provide(client.pipe(Layer.provideMerge(server)))
    )
}

const simulatorConfig = Config.all({
  port: setting("CRM_SIMULATOR_PORT", TcpPort).pipe(Config.withDefault(0)),
  rate: setting("CRM_SIMULATOR_RATE", WholeNumberFromString({ min: 1 })).pipe(Config.withDefault(CRM_SIMULATOR_DEFAULTS.rate)),
  windowSeconds: setting("CRM_SIMULATOR_WINDOW_SECONDS", WholeNumberFromString({ min: 1, max: 86_400, unit: "seconds" })).pipe(
    Config.withDefault(CRM_SIMULATOR_DEFAULTS.windowSeconds)
  ),
  latencyMs: setting("CRM_SIMULATOR_LATENCY_MS", Milliseconds).pipe(Config.withDefault(CRM_SIMULATOR_DEFAULTS.latencyMs)),
  timeScale: timeScaleConfig,
  secret: Config.option(Config.redacted("CRM_SIMULATOR_SECRET"))
})

/**
 * The CRM client: against CRM_BASE_URL (e.g. https://api.hubapi.com) with CRM_TOKEN when set;
 * otherwise against the bundled simulator, started on CRM_SIMULATOR_PORT.
 */
export const CrmLive = Layer.unwrapEffect(
  Effect.gen(function* () {
    const baseUrl = Option.filter(yield* Config.option(Config.string("CRM_BASE_URL")), (url) => url.trim() !== "")
    if (Option.isSome(baseUrl)) {
      const token = yield* Config.redacted("CRM_TOKEN")
      return clientOver({ baseUrl: baseUrl.value, tokenFor: () => token })
    }
    const { secret, ...options } = yield* simulatorConfig
    const simulated = crmSimulated({ ...options, ...Option.match(secret, { onNone: () => ({}), onSome: (s) => ({ secret: s }) }) })
    return Layer.effectContext(Effect.map(Effect.context<CrmClient>(), Context.pick(CrmClient))).pipe(Layer.provide(simulated))
  })
)

/** What the crm tools need: the CRM client (configured as above) and the directory they read. */
export const CrmToolsLive = Layer.merge(CrmLive, CrmDirectory.Default)
