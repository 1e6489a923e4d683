import { HttpServer } from "@effect/platform"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import type { Duration } from "effect"
import { Config, Context, Effect, Layer, Option, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import { createServer } from "node:http"
import { DecimalFromString, Milliseconds, setting, TcpPort, WholeNumberFromString } from "../schema/Setting.ts"
import { MailClient, MailSettings } from "../services/mail/MailClient.ts"
import {
  MAIL_SIMULATOR_DEFAULTS,
  MailSimulatorControl,
  type MailSimulatorOptions,
  MailSimulatorServer
} from "../services/simulators/mail/MailSimulatorServer.ts"
import { MailSimulatorStore } from "../services/simulators/mail/MailSimulatorStore.ts"
import { timeScaleConfig } from "../services/upstream/SimulatorClock.ts"

export interface MailSimulatedOptions extends Omit<MailSimulatorOptions, "apiKey"> {
  readonly apiKey?: Redacted.Redacted<string>
  /** 0 (the default) takes any free port on 127.0.0.1. */
  readonly port?: number
  readonly timeout?: Duration.DurationInput
}

const baseUrlOf = HttpServer.addressWith((address) =>
  Effect.succeed(address._tag === "UnixAddress" ? `unix://${address.path}` : `http://127.0.0.1:${address.port}`)
)

const clientOver = (settings: Context.Tag.Service<MailSettings>) =>
  MailClient.Default.pipe(Layer.provide(Layer.succeed(MailSettings, settings)), Layer.provide(NodeHttpClient.layerUndici))

/** The Nylas-shaped simulator on a local port (its state in this database), and the mail client pointed at it. */
export const mailSimulated = (options: MailSimulatedOptions = {}) => {
  const apiKey = options.apiKey ?? Redacted.make(`nyk_sim_${randomBytes(16).toString("hex")}`)
  const server = MailSimulatorServer.layer({ ...options, apiKey }).pipe(
    Layer.provideMerge(MailSimulatorStore.Default),
    Layer.provideMerge(NodeHttpServer.layer(createServer, { port: options.port ?? 0, host: "127.0.0.1" }))
  )
  const client = Layer.unwrapEffect(
    Effect.map(
      baseUrlOf,
      (baseUrl) => clientOver({ baseUrl, apiKey, ...(options.timeout === undefined ? {} : { timeout: options.timeout }) })
    )
  )
  // The simulator's HttpServer stays inside: the service's own server is another one.
  return Layer.effectContext(
    Effect.map(Effect.context<MailClient | MailSimulatorControl>(), Context.pick(MailClient, MailSimulatorControl))
  )
    .pipe(Layer.provide(client.pipe(Layer.provideMerge(server))))
}

const simulatorConfig = Config.all({
  port: setting("MAIL_SIMULATOR_PORT", TcpPort).pipe(Config.withDefault(0)),
  latencyMs: setting("MAIL_SIMULATOR_LATENCY_MS", Milliseconds).pipe(Config.withDefault(MAIL_SIMULATOR_DEFAULTS.latencyMs)),
  dailyCap: setting("MAIL_SIMULATOR_DAILY_CAP", WholeNumberFromString({ min: 0 })).pipe(
    Config.withDefault(MAIL_SIMULATOR_DEFAULTS.dailyCap)
  ),
  minSpacingMs: setting("MAIL_SIMULATOR_MIN_SPACING_MS", Milliseconds).pipe(Config.withDefault(MAIL_SIMULATOR_DEFAULTS.minSpacingMs)),
  bounceRate: setting("MAIL_SIMULATOR_BOUNCE_RATE", DecimalFromString({ min: 0, max: 1 })).pipe(
    Config.withDefault(MAIL_SIMULATOR_DEFAULTS.bounceRate)
  ),
  seed: Config.string("MAIL_SIMULATOR_SEED").pipe(Config.withDefault(MAIL_SIMULATOR_DEFAULTS.seed)),
  timeScale: timeScaleConfig
})

/**
 * The mail client: against NYLAS_BASE_URL (e.g. https://api.us.nylas.com) with NYLAS_API_KEY when
 * set; otherwise against the bundled simulator, started on MAIL_SIMULATOR_PORT.
 */
export const MailLive = Layer.unwrapEffect(
  Effect.gen(function* () {
    const baseUrl = Option.filter(yield* Config.option(Config.string("NYLAS_BASE_URL")), (url) => url.trim() !== "")
    if (Option.isSome(baseUrl)) {
      const apiKey = yield* Config.redacted("NYLAS_API_KEY")
      return clientOver({ baseUrl: baseUrl.value, apiKey })
    }
    const simulated = mailSimulated(yield* simulatorConfig)
    return Layer.effectContext(Effect.map(Effect.context<MailClient>(), Context.pick(MailClient))).pipe(Layer.provide(simulated))
  })
)
