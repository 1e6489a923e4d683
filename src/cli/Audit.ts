import { Console, Effect } from "effect"
import { AuditVerify } from "../../services/audit/AuditVerify.ts"

export const auditVerify = Effect.gen(function* () {
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
