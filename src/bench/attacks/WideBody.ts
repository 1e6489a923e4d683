import { Effect, Ref } from "effect"
import { type Attack, range, report } from "./Attack.ts"
import { executeRaw, request, seconds, tally } from "./Http.ts"
import { stage } from "./Stage.ts"

const KEYS = 60_000
const body = `{"input":{${range(KEYS).map((i) => `"k${i}":0`).join(",")}}}`

const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0

/** A 649 KB body with 60 k keys: the size of the answer, and /health while 8 such requests run at once. */
export const wideBody: Attack = {
  name: "wide",
  run: (settings) =>
    Effect.gen(function* () {
      const { service, keys } = yield* stage(settings.adminUrl, "wide")
      const health = Effect.map(request(`${service.origin}/health`), (a) => a.ms)
      const send = executeRaw(service.origin, keys.paid, "core.timestamp.now", body)
      const first = yield* send
      const alone = median(yield* Effect.forEach(range(10), () => health))
      const done = yield* Ref.make(false)
      const probe = Effect.gen(function* () {
        const latencies: Array<number> = []
        while (!(yield* Ref.get(done))) {
          latencies.push(yield* health)
          yield* Effect.sleep("20 millis")
        }
        return latencies
      })
      const parallel = Effect.forEach(range(8), () => send, { concurrency: "unbounded" }).pipe(Effect.ensuring(Ref.set(done, true)))
      const [answers, during] = yield* Effect.all([parallel, probe], { concurrency: "unbounded" })
      const worst = Math.max(...during)
      yield* report(
        `wide body (${(body.length / 1024).toFixed(0)} KB, ${KEYS.toLocaleString("en")} keys)`,
        answers.length + 1,
        `answer ${(first.text.length / 1024).toFixed(1)} KB (${tally([first.status, ...answers.map((a) => a.status)])}); /health ${
          seconds(worst)
        } at worst while 8 ran in parallel vs ${alone.toFixed(1)} ms alone (${(worst / Math.max(alone, 0.1)).toFixed(0)}×)`
      )
    })
}
