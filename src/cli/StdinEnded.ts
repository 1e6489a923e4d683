import { Effect } from "effect"

/** Succeeds once stdin has ended (at once when it already has): nothing more will be read from it. */
export const stdinEnded = Effect.async<void>((resume) => {
  const done = () => resume(Effect.void)
  if (process.stdin.readableEnded || process.stdin.destroyed) return done()
  process.stdin.once("end", done).once("close", done)
  return Effect.sync(() => void process.stdin.off("end", done).off("close", done))
})
