import { defaultTeardown, type Teardown } from "@effect/platform/Runtime"
import { Cause, Effect, Exit } from "effect"

/** The signals brein stops on, with their numbers. */
const SIGNALS = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 } as const
export type StopSignal = keyof typeof SIGNALS

/**
 * Why the command was stopped before it ended, read where the process exits (`teardown`), which sees
 * only that the command was interrupted. Kept here, at the edge of the program, because the signal
 * handlers and the exit are plain Node callbacks.
 */
const stop: { signal: StopSignal | undefined; serving: boolean } = { signal: undefined, serving: false }

/** The first signal that stopped the command (a second one ends the process at once anyway). */
export const recordSignal = (signal: StopSignal) => {
  stop.signal ??= signal
}

/** Said by a command that serves until it is stopped (serve, mcp): a signal is how it is meant to end. */
export const servesUntilStopped = Effect.sync(() => void (stop.serving = true))

/** Records SIGINT and SIGTERM, which the runtime itself turns into an interruption of the command. */
export const recordingSignals = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.suspend(() => {
    const onInt = () => recordSignal("SIGINT")
    const onTerm = () => recordSignal("SIGTERM")
    process.once("SIGINT", onInt).once("SIGTERM", onTerm)
    return Effect.ensuring(effect, Effect.sync(() => void process.off("SIGINT", onInt).off("SIGTERM", onTerm)))
  })

/**
 * The process's exit code when the command ends. A command a signal stopped before it finished exits
 * 128 + the signal's number (130 for Ctrl-C, 143 for SIGTERM, 129 for a closed terminal), as a shell
 * reports a process the signal ended, so a script sees that it did not finish; a command that serves
 * until stopped exits 0. Otherwise the platform's own teardown decides (every command's own failure was
 * reported and set its code before: `reportFailure`).
 */
export const teardown: Teardown = (exit, onExit) => {
  if (Exit.isFailure(exit) && Cause.isInterruptedOnly(exit.cause) && stop.signal !== undefined && !stop.serving) {
    return onExit(128 + SIGNALS[stop.signal])
  }
  defaultTeardown(exit, onExit)
}
