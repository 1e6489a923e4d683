import { Effect } from "effect"
import { recordSignal } from "./Stopped.ts"

/**
 * A hangup (SIGHUP: the terminal brein runs in was closed) stops `effect` as SIGTERM does, by
 * interrupting the fiber that runs it once: brein drains, then stops the embedded PostgreSQL, where the
 * default action ended the process at once and left the database running with no owner. The terminal
 * is gone, so what is still written to it is dropped rather than failing the stop. A second hangup
 * ends the process at once, as a second SIGTERM does.
 */
export const stoppedByHangup = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.withFiberRuntime<A, E, R>((fiber) => {
    const ignore = () => {}
    const onHangup = () => {
      recordSignal("SIGHUP")
      process.stdout.on("error", ignore)
      process.stderr.on("error", ignore)
      fiber.unsafeInterruptAsFork(fiber.id())
    }
    process.once("SIGHUP", onHangup)
    return Effect.ensuring(effect, Effect.sync(() => void process.removeListener("SIGHUP", onHangup)))
  })
