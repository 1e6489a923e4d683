import { Config, Duration, Effect } from "effect"
import { DecimalFromString, setting } from "../../schema/Setting.ts"

export const UPSTREAM_TIME_SCALE_ENV = "UPSTREAM_TIME_SCALE"

export const timeScaleConfig: Config.Config<number> = setting(UPSTREAM_TIME_SCALE_ENV, DecimalFromString({ min: 0 })).pipe(
  Config.withDefault(1)
)

export const scaledSleep = (millis: number, timeScale: number): Effect.Effect<void> => {
  const scaled = Math.round(millis * timeScale)
  return scaled > 0 ? Effect.sleep(Duration.millis(scaled)) : Effect.void
}

export const jittered = (base: number, jitter: number, roll: number): number => Math.max(0, base + jitter * (2 * roll - 1))
