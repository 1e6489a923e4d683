import { Effect, Ref } from "effect"
import { stallingProxy } from "../StallingProxy.ts"
import { type Attack, range, report } from "./Attack.ts"
import { describeAnswer, execute, request, seconds, tally } from "./Http.ts"
import { connect, createKey, freshDatabase, startService, terminateBackends } from "./Stage.ts"

/**
 * Steady calls while the database stops answering: the service reaches it through a proxy that, from one
 * moment, accepts connections and never answers them. In a `stall` the connections the service held are
 * terminated; in a `freeze` they are kept and their bytes held each way (the database's process stopped,
 * the path cut without a reset). Every call must be answered (a typed 503, or a pure call's
 * `audit_status: failed`) within a bound (`BREIN_DB_CONNECT_TIMEOUT_SECONDS`, its default here: once
 * for a connection, about 1.5 times for a statement already sent, a pure call's audit batch up to 2.5
 * times), not hang; once the proxy forwards again, calls are served again.
 */
const stopped = (name: "stall" | "freeze"): Attack => ({
  name,
  run: (settings) =>
    Effect.gen(function* () {
      const db = yield* freshDatabase(settings.adminUrl, name)
      const proxy = yield* stallingProxy(db.url)
      const service = yield* startService(db, { env: { DATABASE_URL: proxy.url } })
      const key = yield* createKey(db, "attack-paid", "paid")
      const sql = yield* connect(db.url)
      const phase = yield* Ref.make<"before" | "stalled" | "after" | "done">("before")
      const answers: Array<string> = []
      const longest = { list: 0, tool: 0 }
      // half call a tool (the audit's group writer), half list connections (a plain repository read)
      const call = (what: "tool" | "list") =>
        (what === "tool"
          ? execute(service.origin, key, "core.timestamp.now", {})
          : request(`${service.origin}/api/v1/connections`, { headers: { authorization: `Bearer ${key}` } })).pipe(
            Effect.map((answer) => ({ ms: answer.ms, said: describeAnswer(what)(answer) })),
            Effect.catchTag("RequestFailed", (e) => Effect.succeed({ ms: 0, said: `${what} ${e.code}` }))
          )
      const caller = (i: number) =>
        Effect.gen(function* () {
          const what = i % 2 === 0 ? "tool" : "list"
          while (true) {
            const at = yield* Ref.get(phase)
            if (at === "done") return
            const { ms, said } = yield* call(what)
            // a call met the stall if it was under way at any moment of it: begun before and answered after its start, too
            const met = at === "stalled" || (at === "before" && (yield* Ref.get(phase)) !== "before")
            if (met) longest[what] = Math.max(longest[what], ms)
            answers.push(`${met ? "stalled" : at}: ${said}`)
          }
        })
      const callers = yield* Effect.fork(Effect.forEach(range(8), caller, { concurrency: "unbounded", discard: true }))
      const stalledFor = settings.quick ? 12 : 25
      yield* Effect.sleep("2 seconds")
      yield* Ref.set(phase, "stalled")
      const how = name === "stall"
        ? yield* proxy.stall.pipe(
          Effect.zipRight(terminateBackends(sql)),
          Effect.map((n) => `connections accepted and never answered for ${stalledFor} s, ${n} backends terminated`)
        )
        : yield* proxy.freeze.pipe(Effect.as(`every connection's bytes held, new ones never answered, for ${stalledFor} s`))
      yield* Effect.sleep(`${stalledFor} seconds`)
      yield* proxy.forward
      yield* Ref.set(phase, "after")
      yield* Effect.sleep("3 seconds")
      yield* Ref.set(phase, "done")
      yield* callers.await
      const during = answers.filter((a) => a.startsWith("stalled: ")).map((a) => a.slice("stalled: ".length))
      const after = answers.filter((a) => a.startsWith("after: ")).map((a) => a.slice("after: ".length))
      yield* report(
        `database ${name} (${how})`,
        answers.length,
        `while stalled: ${tally(during)}, longest answer ${seconds(longest.list)} (list), ${seconds(longest.tool)} (tool), ${yield* proxy
          .stalled} connections left unanswered; after: ${tally(after)}`
      )
    })
})

export const stall = stopped("stall")
export const freeze = stopped("freeze")
