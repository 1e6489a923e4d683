import { Clock, Effect } from "effect"
import { type Attack, report } from "./Attack.ts"
import { type Answer, execute, request, seconds, tally } from "./Http.ts"
import { createKey, freshDatabase, StageFailed, startService } from "./Stage.ts"

const WATCH_MS = 45_000
const FAST = { UPSTREAM_TIME_SCALE: "0" }

interface Watched {
  /** ms after the delete of the last answer that still served the connection (200) or failed with a 5xx */
  last: number
  served: Array<number | string>
  refused: Array<number | string>
}

/** Two processes on one database: one deletes a connection, the other is asked for it until it refuses. */
export const deletedConnection: Attack = {
  name: "deleted",
  run: (settings) =>
    Effect.gen(function* () {
      const db = yield* freshDatabase(settings.adminUrl, "deleted")
      const first = yield* startService(db, { name: "brein 1", env: FAST })
      const second = yield* startService(db, { name: "brein 2", env: FAST })
      const key = yield* createKey(db, "attack-paid", "paid")
      const created = yield* request(`${first.origin}/api/v1/connections`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
        body: JSON.stringify({ connector: "sii", credentials: { rut: "77.123.456-9", clave: "bench" } })
      })
      const id = /"id":"(conn_[^"]+)"/.exec(created.text)?.[1]
      if (id === undefined) {
        return yield* new StageFailed({ message: `connection not created: ${created.status} ${created.text.slice(0, 200)}` })
      }
      const header = { "x-connect-connection": id }
      const consultar = () => execute(second.origin, key, "sii.rcv.consultar", { periodo: "2026-07", perspectiva: "ventas" }, header)
      const sincronizar = () =>
        execute(second.origin, key, "sii.conexion.sincronizar", { periodo: "2026-07", perspectiva: "ventas", esperar: 0 }, header)
      // the second process has used the connection (and holds it in its caches) before the delete
      const warm = [(yield* consultar()).status, (yield* sincronizar()).status]
      const deleted = yield* request(`${first.origin}/api/v1/connections/${id}`, {
        method: "DELETE",
        headers: { authorization: `Bearer ${key}` }
      })
      const start = yield* Clock.currentTimeMillis
      const watched = {
        consultar: { last: -1, served: [], refused: [] } as Watched,
        sincronizar: { last: -1, served: [], refused: [] } as Watched
      }
      const ask = (which: keyof typeof watched, call: () => Effect.Effect<Answer, unknown>) =>
        Effect.gen(function* () {
          const status = yield* call().pipe(Effect.map((a) => a.status), Effect.catchAll(() => Effect.succeed("no answer")))
          const now = (yield* Clock.currentTimeMillis) - start
          const stale = status === 200 || (typeof status === "number" && status >= 500)
          if (stale) {
            watched[which].last = now
            watched[which].served.push(status)
          } else {
            watched[which].refused.push(status)
          }
          return stale
        })
      let refusedInARow = 0
      let calls = 0
      while ((yield* Clock.currentTimeMillis) - start < WATCH_MS && refusedInARow < 10) {
        const stale = [yield* ask("consultar", consultar), yield* ask("sincronizar", sincronizar)]
        calls += 2
        refusedInARow = stale.some(Boolean) ? 0 : refusedInARow + 1
        yield* Effect.sleep("100 millis")
      }
      const describe = (w: Watched) =>
        `${
          w.served.length === 0 ? "refused from the first call" : `answered ${tally(w.served)} for ${seconds(w.last)} after the delete`
        } (${tally(w.refused)})`
      yield* report(
        "deleted connection, other process",
        calls,
        `consultar ${describe(watched.consultar)}; sincronizar ${
          describe(watched.sincronizar)
        } (delete answered ${deleted.status}; before it: ${warm.join("/")})`
      )
    })
}
