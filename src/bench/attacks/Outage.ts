import { Effect, Ref } from "effect"
import { type Attack, range, report } from "./Attack.ts"
import { describeAnswer, execute, request, tally } from "./Http.ts"
import { stage, terminateBackends } from "./Stage.ts"

/** Steady calls while the service's database connections are terminated again and again: typed 503s, or empty 500s. */
export const outage: Attack = {
  name: "outage",
  run: (settings) =>
    Effect.gen(function* () {
      const { service, keys, sql } = yield* stage(settings.adminUrl, "outage")
      const answers: Array<string> = []
      const stop = yield* Ref.make(false)
      const linesBefore = yield* service.lines
      // half call a tool (audit writer), half list connections (a plain repository read)
      const calls = [
        () => Effect.map(execute(service.origin, keys.paid, "core.timestamp.now", {}), describeAnswer("tool")),
        () =>
          Effect.map(
            request(`${service.origin}/api/v1/connections`, { headers: { authorization: `Bearer ${keys.paid}` } }),
            describeAnswer("list")
          )
      ] as const
      const caller = (i: number) =>
        Effect.gen(function* () {
          while (!(yield* Ref.get(stop))) {
            answers.push(yield* (i % 2 === 0 ? calls[0] : calls[1])().pipe(Effect.catchTag("RequestFailed", (e) => Effect.succeed(e.code))))
          }
        })
      const callers = yield* Effect.fork(Effect.forEach(range(8), caller, { concurrency: "unbounded", discard: true }))
      const rounds = settings.quick ? 5 : 20
      let terminated = 0
      for (const _ of range(rounds)) {
        yield* Effect.sleep("500 millis")
        terminated += yield* terminateBackends(sql)
      }
      yield* Effect.sleep("2 seconds")
      yield* Ref.set(stop, true)
      yield* callers.await
      const lines = (yield* service.lines) - linesBefore
      yield* report(
        `database outage (${terminated} backends terminated in ${rounds} rounds)`,
        answers.length,
        `${tally(answers)}; ${lines} log line(s) meanwhile`
      )
    })
}
