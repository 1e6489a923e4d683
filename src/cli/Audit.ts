import { Command } from "@effect/cli"
import { Console, Effect } from "effect"
import { AdminLive } from "../../layers/Admin.ts"
import { AuditVerify } from "../../services/audit/AuditVerify.ts"
import { exitWith } from "./Failure.ts"
import { database, databaseSettings } from "./Settings.ts"

const auditVerify = Effect.gen(function* () {
  const report = yield* (yield* AuditVerify).verify()
  if (report.firstBreak === null) {
    yield* Console.log(`audit chain intact: ${report.rows} rows in ${report.chains} chains`)
    return 0
  }
  const b = report.firstBreak
  yield* Console.log(
    `audit chain BROKEN at chain ${b.chain} seq ${b.seq} (request ${b.requestId}): ${b.reason}; ${report.rows} rows verified before it`
  )
  return 1
})

const verify = Command.make("verify", database, (options) =>
  auditVerify.pipe(Effect.provide(AdminLive), databaseSettings(options), Effect.flatMap(exitWith))).pipe(
    Command.withDescription("Walk the audit hash chain; exit 1 at the first broken row")
  )

export const audit = Command.make("audit").pipe(
  Command.withDescription("The audit log"),
  Command.withSubcommands([verify])
)
