import { Effect } from "effect"
import { type Attack, range, report } from "./Attack.ts"
import { auditStatus, execute, tally } from "./Http.ts"
import { cli, connect, createKey, freshDatabase, scalar, startService } from "./Stage.ts"

/** Two processes append to the same two chains at once: every answer that says recorded must have its row. */
export const twoWriters: Attack = {
  name: "writers",
  run: (settings) =>
    Effect.gen(function* () {
      const db = yield* freshDatabase(settings.adminUrl, "writers")
      const services = [yield* startService(db, { name: "brein 1" }), yield* startService(db, { name: "brein 2" })]
      const keys = [yield* createKey(db, "attack-paid", "paid"), yield* createKey(db, "attack-free", "free")]
      const sql = yield* connect(db.url)
      const attempts = settings.quick ? 1_000 : 6_000
      const statuses = yield* Effect.forEach(
        range(attempts),
        // both processes write both chains, so their batches hold the same chains
        (i) =>
          execute(services[i % 2]?.origin ?? "", keys[Math.floor(i / 2) % 2] ?? "", "core.timestamp.now", {}).pipe(
            Effect.map((a) => (a.status === 200 ? auditStatus(a.text) : String(a.status))),
            Effect.catchTag("RequestFailed", (e) => Effect.succeed(e.code))
          ),
        { concurrency: 32 }
      )
      const recorded = statuses.filter((s) => s === "recorded").length
      const rows = yield* scalar(sql, "SELECT count(*) AS value FROM audit_log WHERE tool_id = 'core.timestamp.now'")
      const verify = yield* cli(db, ["audit", "verify"])
      yield* report(
        "two processes, two shared chains",
        attempts,
        `${recorded.toLocaleString("en")} answers said recorded, ${rows.toLocaleString("en")} rows written (${
          rows >= recorded ? "none lost" : `${recorded - rows} LOST`
        }); answers ${tally(statuses)}; verify: ${verify.stdout.trim().split("\n")[0] ?? ""}`
      )
    })
}
