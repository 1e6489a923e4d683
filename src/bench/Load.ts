import autocannon from "autocannon"
import { Data, Duration, Effect, Schema } from "effect"

export class LoadFailed extends Data.TaggedError("LoadFailed")<{ readonly target: string; readonly cause: unknown }> {}

const Histogram = Schema.Struct({ average: Schema.Number, p50: Schema.Number, p99: Schema.Number })

const Result = Schema.Struct({
  "2xx": Schema.Number,
  non2xx: Schema.Number,
  errors: Schema.Number,
  timeouts: Schema.Number,
  duration: Schema.Number,
  latency: Histogram
})

export interface Target {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

export interface Figures {
  readonly rps: number
  readonly p50: number
  readonly p99: number
  readonly ok: number
  readonly failed: number
}

const decode = Schema.decodeUnknown(Result)

const run = (target: Target, connections: number, duration: Duration.Duration) =>
  Effect.async<unknown, LoadFailed>((resume) => {
    const instance = autocannon(
      {
        url: target.url,
        method: "POST",
        headers: target.headers,
        body: target.body,
        connections,
        duration: Duration.toSeconds(duration)
      },
      (error, result) =>
        resume(
          error === null || error === undefined ? Effect.succeed(result) : Effect.fail(new LoadFailed({ target: target.url, cause: error }))
        )
    )
    return Effect.sync(() => instance.stop())
  })

/** POSTs the target from `connections` keep-alive connections for `duration`; latencies in ms. */
export const load = Effect.fn("Bench.load")(function* (target: Target, connections: number, duration: Duration.Duration) {
  const result = yield* run(target, connections, duration).pipe(
    Effect.flatMap(decode),
    Effect.mapError((cause) => (cause._tag === "LoadFailed" ? cause : new LoadFailed({ target: target.url, cause })))
  )
  return {
    rps: result["2xx"] / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    ok: result["2xx"],
    failed: result.non2xx + result.errors + result.timeouts
  } satisfies Figures
})
