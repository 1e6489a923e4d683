import { Effect } from "effect"

const codeOf = (error: unknown) =>
  typeof error === "object" && error !== null && "code" in error && typeof error.code === "string" ? error.code : undefined

/**
 * Output that cannot be written. A reader of brein's output that went away (`brein … 2>&1 | head -1`, a
 * log shipper that died) makes the next write to stdout or stderr fail (EPIPE), which Node throws out of
 * the process: it ended at once and left the embedded PostgreSQL running with no owner. Instead `effect`
 * stops as on SIGTERM, by interrupting the fiber that runs it once, and what is still written is dropped.
 *
 * Any other failure to write (a full disk: `brein keys create > key.txt`; a closed descriptor) means
 * output the user asked for is lost: the command stops the same way, says so on stderr when it still
 * can, and exits 1. Node reports such a failure after the write returned, possibly once the command has
 * ended, so the listeners stay for the life of the process.
 */
export const stoppedByBrokenPipe = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.withFiberRuntime<A, E, R>((fiber) => {
    const ignore = () => {}
    const watched = [process.stdout, process.stderr].map((stream) => ({
      stream,
      listener: (error: unknown) => onError(stream, error)
    }))
    const onError = (stream: NodeJS.WriteStream, error: unknown) => {
      for (const { listener, stream: each } of watched) {
        each.off("error", listener)
        // the output is gone for good: every later write fails too, and is dropped
        each.on("error", ignore)
      }
      if (codeOf(error) !== "EPIPE") {
        process.exitCode = 1
        if (stream === process.stdout) {
          const reason = error instanceof Error ? error.message : String(error)
          process.stderr.write(
            `brein: stdout could not be written (${reason}): what the command printed there is lost, what it did stands\n`
          )
        }
      }
      fiber.unsafeInterruptAsFork(fiber.id())
    }
    for (const { listener, stream } of watched) stream.on("error", listener)
    return effect
  })
