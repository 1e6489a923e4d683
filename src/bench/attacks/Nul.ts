import { Effect, Ref } from "effect"
import { type Attack, range, report } from "./Attack.ts"
import { auditStatus, execute, tally } from "./Http.ts"
import { stage } from "./Stage.ts"

/** Workspace A sends tool ids with a NUL byte while workspace B calls core.timestamp.now steadily. */
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
        () =>
          execute(service.origin, keys.free, "x%00", {}).pipe(
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
        "NUL tool id",
        attempts,
        `${o.affected.toLocaleString("en")} of ${o.calls.toLocaleString("en")} other-workspace calls affected${
          o.affected > 0 ? ` (${tally(o.outcomes)})` : ""
        }; attacker got ${tally(statuses)}`
      )
    })
}
