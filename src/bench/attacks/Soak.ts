import autocannon from "autocannon"
import { Duration, Effect, Fiber, Schema } from "effect"
import { type Attack, report } from "./Attack.ts"
import { megabytes } from "./Http.ts"
import { rss, stage, StageFailed } from "./Stage.ts"

const SAMPLE_EVERY = Duration.seconds(10)

const Result = Schema.Struct({ "2xx": Schema.Number, non2xx: Schema.Number, errors: Schema.Number, timeouts: Schema.Number })

/** core.timestamp.now at a fixed rate for the whole duration (bounded: what a busy tenant sends, not a flood). */
const boundedLoad = (url: string, key: string, rate: number, duration: Duration.Duration) =>
  Effect.async<unknown, StageFailed>((resume) => {
    const instance = autocannon(
      {
        url,
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
        body: "{\"input\":{}}",
        connections: 64,
        overallRate: rate,
        duration: Duration.toSeconds(duration)
      },
      (error, result) =>
        resume(error === null || error === undefined ? Effect.succeed(result) : Effect.fail(new StageFailed({ message: String(error) })))
    )
    return Effect.sync(() => instance.stop())
  }).pipe(Effect.flatMap(Schema.decodeUnknown(Result)))

/** A bounded load for `--duration` with the service's resident memory sampled every 10 s. */
export const soak: Attack = {
  name: "load",
  run: (settings) =>
    Effect.gen(function* () {
      const { service, keys } = yield* stage(settings.adminUrl, "load")
      const pid = service.process.pid
      const samples: Array<number> = [yield* rss(pid)]
      const sampler = yield* Effect.fork(
        Effect.forever(Effect.flatMap(Effect.sleep(SAMPLE_EVERY), () => Effect.map(rss(pid), (bytes) => void samples.push(bytes))))
      )
      const result = yield* boundedLoad(
        `${service.origin}/api/v1/tools/core.timestamp.now/execute`,
        keys.paid,
        settings.rate,
        settings.duration
      )
      yield* Fiber.interrupt(sampler)
      samples.push(yield* rss(pid))
      const total = result["2xx"] + result.non2xx + result.errors + result.timeouts
      const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0)
      const first = samples[0] ?? 0
      const last = samples[samples.length - 1] ?? 0
      const afterWarmup = samples[Math.min(1, samples.length - 1)] ?? 0
      yield* report(
        `bounded load (${settings.rate} req/s for ${Duration.format(settings.duration)})`,
        total,
        `${(total / Duration.toSeconds(settings.duration)).toFixed(0)} req/s achieved, ${
          result["2xx"].toLocaleString("en")
        } 2xx, ${result.non2xx} non-2xx, ${result.errors + result.timeouts} errors; RSS every 10 s (MB): ${
          samples.map(mb).join(" ")
        }; growth ${megabytes(last - first)} from start, ${megabytes(last - afterWarmup)} after the first 10 s, peak ${
          megabytes(Math.max(...samples))
        }`
      )
    })
}
