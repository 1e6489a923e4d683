import { Effect } from "effect"

/**
 * A reader of brein's output that went away (`brein … 2>&1 | head -1`, a log shipper that died) makes the
 * next write to stdout or stderr fail (EPIPE), which Node throws out of the process: it ended at once and
 * left the embedded PostgreSQL running with no owner. Instead `effect` stops as on SIGTERM, by
 * interrupting the fiber that runs it once, and what is still written is dropped.
 */
export const stoppedByBrokenPipe = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.withFiberRuntime<A, E, R>((fiber) => {
    const streams = [process.stdout, process.stderr]
    const ignore = () => {}
    const onBroken = () => {
      for (const stream of streams) {
        stream.off("error", onBroken)
        // the output is gone for good: every later write fails too, and is dropped
        stream.on("error", ignore)
      }
      fiber.unsafeInterruptAsFork(fiber.id())
    }
    for (const stream of streams) stream.on("error", onBroken)
    return Effect.ensuring(effect, Effect.sync(() => streams.forEach((stream) => stream.off("error", onBroken))))
  })
