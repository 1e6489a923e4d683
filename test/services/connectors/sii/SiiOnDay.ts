import { Clock, Context, Effect, Layer } from "effect"
import { makeSiiSimulator, SiiSimulator } from "../../../../services/upstream/SiiSimulator.ts"
import { SiiUpstream } from "../../../../services/upstream/SiiUpstream.ts"

/** The instant the simulated SII believes it is; the rest of the service keeps the real clock. */
export interface SiiDay {
  readonly set: (iso: string) => Effect.Effect<void>
}

/**
 * The SII simulator (instant) seeing a day the test chooses: it decides which documents exist and
 * their estado and amounts from its clock, so moving the day changes what a re-sync reads.
 */
export const siiOnDay = (iso: string) => {
  let now = Date.parse(iso)
  const base = Clock.make()
  const clock: Clock.Clock = {
    [Clock.ClockTypeId]: Clock.ClockTypeId,
    unsafeCurrentTimeMillis: () => now,
    currentTimeMillis: Effect.sync(() => now),
    unsafeCurrentTimeNanos: () => BigInt(now) * 1_000_000n,
    currentTimeNanos: Effect.sync(() => BigInt(now) * 1_000_000n),
    sleep: (duration) => base.sleep(duration)
  }
  const day: SiiDay = { set: (next) => Effect.sync(() => void (now = Date.parse(next))) }
  const onDay = Effect.withClock(clock)
  const sii = Layer.effectContext(
    Effect.map(makeSiiSimulator({ timeScale: 0 }), ({ control, upstream }) =>
      Context.make(
        SiiUpstream,
        SiiUpstream.of({
          login: (credentials) =>
            onDay(upstream.login(credentials)).pipe(
              Effect.map((session) => ({
                ...session,
                resumen: (periodo, perspectiva) => onDay(session.resumen(periodo, perspectiva)),
                detalle: (periodo, perspectiva, tipoDte) => onDay(session.detalle(periodo, perspectiva, tipoDte))
              }))
            )
        })
      ).pipe(Context.add(SiiSimulator, control)))
  )
  return { day, sii }
}
