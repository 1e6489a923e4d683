import { Effect, Ref } from "effect"
import { type Attack, range, report } from "./Attack.ts"
import { auditStatus, execute, request, tally } from "./Http.ts"
import { stage } from "./Stage.ts"

/** Every route that takes an id in its path, with a NUL byte for the id (the tool's, a connection's, a session's, a sequence's). */
const paths = [
  { method: "POST", path: "/api/v1/tools/x%00/execute", body: "{\"input\":{}}" },
  { method: "GET", path: "/api/v1/tools/x%00" },
  { method: "GET", path: "/api/v1/connections/conn_%00" },
  { method: "GET", path: "/api/v1/connections/%00/jobs" },
  { method: "GET", path: "/api/v1/sessions/ses_%00" },
  { method: "GET", path: "/api/v1/sessions/%00/events" },
  { method: "POST", path: "/api/v1/sessions/%00/messages", body: "{\"text\":\"hola\"}" },
  { method: "GET", path: "/api/v1/sequences/sq_%00/authorizations" }
] as const

/** Workspace A sends ids with a NUL byte, on every route that takes one, while workspace B calls core.timestamp.now steadily. */
export const nul: Attack = {
  name: "nul",
  run: (settings) =>
    Effect.gen(function* () {
      const { service, keys } = yield* stage(settings.adminUrl, "nul")
      const attempts = settings.quick ? 60 : 300
      const stop = yield* Ref.make(false)
      const other = yield* Ref.make({ calls: 0, affected: 0, outcomes: [] as Array<string> })
      const steady = Effect.gen(function* () {
        while (!(yield* Ref.get(stop))) {
          const outcome = yield* execute(service.origin, keys.paid, "core.timestamp.now", {}).pipe(
            Effect.map((a) => (a.status === 200 && auditStatus(a.text) === "recorded" ? "ok" : `${a.status}/${auditStatus(a.text)}`)),
            Effect.catchTag("RequestFailed", (e) => Effect.succeed(e.code))
          )
          yield* Ref.update(other, (o) => ({
            calls: o.calls + 1,
            affected: o.affected + (outcome === "ok" ? 0 : 1),
            outcomes: outcome === "ok" ? o.outcomes : [...o.outcomes, outcome]
          }))
        }
      })
      const workers = yield* Effect.fork(Effect.forEach(range(4), () => steady, { concurrency: "unbounded", discard: true }))
      const statuses = yield* Effect.forEach(
        range(attempts),
        (i) =>
          Effect.suspend(() => {
            const { method, path, ...rest } = paths[i % paths.length]!
            return request(`${service.origin}${path}`, {
              method,
              headers: { "content-type": "application/json", authorization: `Bearer ${keys.free}` },
              ...("body" in rest ? { body: rest.body } : {})
            })
          }).pipe(
            Effect.map((a) => a.status),
            Effect.catchTag("RequestFailed", (e) => Effect.succeed(e.code)),
            Effect.zipLeft(Effect.sleep("20 millis"))
          ),
        { concurrency: 2 }
      )
      // B's calls batched with A's last ones must finish too
      yield* Effect.sleep("1 second")
      yield* Ref.set(stop, true)
      yield* workers.await
      const o = yield* Ref.get(other)
      yield* report(
        "NUL ids in paths",
        attempts,
        `${o.affected.toLocaleString("en")} of ${o.calls.toLocaleString("en")} other-workspace calls affected${
          o.affected > 0 ? ` (${tally(o.outcomes)})` : ""
        }; attacker got ${tally(statuses)}`
      )
    })
}
