import { Effect, Layer } from "effect"
import { Dispatcher } from "../services/sequences/Dispatcher.ts"
import { DispatchSettings, DispatchSettingsLive } from "../services/sequences/DispatchSettings.ts"
import { MailLive } from "./Mail.ts"

/** Runs the dispatcher's passes in the background for as long as the layer's scope lives, when enabled. */
export const DispatcherWorker = Layer.scopedDiscard(Effect.gen(function* () {
  const settings = yield* DispatchSettings
  if (!settings.enabled) return yield* Effect.logInfo("sequence dispatcher off (BREIN_DISPATCHER=off)")
  yield* Effect.forkScoped((yield* Dispatcher).run)
}))

/**
 * The server's dispatcher: sends activated sequences through the mail provider (Nylas with
 * NYLAS_BASE_URL and NYLAS_API_KEY, otherwise the bundled simulator). BREIN_DISPATCHER=off starts
 * neither the dispatcher nor the simulator.
 */
export const DispatcherLive = Layer.unwrapEffect(Effect.map(DispatchSettings, (settings) =>
  settings.enabled
    ? DispatcherWorker.pipe(
      Layer.provide(Dispatcher.Default),
      Layer.provide(MailLive),
      Layer.provide(Layer.succeed(DispatchSettings, settings))
    )
    : Layer.empty)).pipe(Layer.provide(DispatchSettingsLive))
