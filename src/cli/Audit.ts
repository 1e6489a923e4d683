import { Command, Options } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { AdminLive } from "../../layers/Admin.ts"
import type { VerifyReport } from "../../schema/audit/AuditRow.ts"
import type { ReceiptCheck } from "../../schema/audit/Checkpoint.ts"
import { AuditVerify } from "../../services/audit/AuditVerify.ts"
import { counted } from "./Counted.ts"
import { CommandFailed, exitWith } from "./Failure.ts"
import { database, databaseSettings } from "./Settings.ts"

/** Exit code when every row links and matches the checkpoints, but no key was at hand to check their signatures. */
export const UNCHECKED = 3

const describe = (report: VerifyReport) => {
  const c = report.checkpoints
  const signatures = c.count === 0
    ? "no signed checkpoints yet"
    : c.signatures === "verified"
    ? `${counted(c.count, "signed checkpoint")}, signatures verified`
    : `${counted(c.count, "checkpoint")}, signatures NOT CHECKED (no audit key: set BREIN_AUDIT_KEY or --data-dir)`
  const witness = c.witness === "matched" ? "the witness outside the database matches" : "no witness outside the database"
  return `${signatures}; ${witness}; ${counted(c.uncovered, "row")} after the last checkpoint not yet covered`
}

const codeOf = (report: VerifyReport) =>
  !report.ok ? 1 : report.checkpoints.count > 0 && report.checkpoints.signatures === "unchecked" ? UNCHECKED : 0

const printReport = (report: VerifyReport) =>
  Effect.gen(function* () {
    const b = report.firstBreak
    if (b === null) {
      yield* Console.log(`audit chain intact: ${counted(report.rows, "row")} in ${counted(report.chains, "chain")}; ${describe(report)}`)
    } else {
      const request = b.requestId === null ? "" : ` (request ${b.requestId})`
      yield* Console.log(
        `audit chain BROKEN at chain ${b.chain} seq ${b.seq}${request}: ${b.reason}: ${b.detail}; ${
          counted(report.rows, "row")
        } verified before it`
      )
    }
    return codeOf(report)
  })

const printReceipt = (check: ReceiptCheck) =>
  Effect.gen(function* () {
    const code = yield* printReport(check.report)
    if (check.status === "not_found") {
      yield* Console.log(`receipt ${check.requestId}: NOT RECORDED, the audit log has no row for this request`)
      return 1
    }
    if (check.status === "digest_differs") {
      yield* Console.log(`receipt ${check.requestId}: DIFFERS from the row at chain ${check.chain} seq ${check.seq}`)
      return 1
    }
    const coverage = check.covered ? "covered by a signed checkpoint" : "not yet covered by a signed checkpoint"
    const trace = check.traceId === null ? "" : `; trace ${check.traceId}`
    yield* Console.log(`receipt ${check.requestId}: recorded at chain ${check.chain} seq ${check.seq}, ${coverage}${trace}`)
    return code
  })

const parseReceipt = (text: string) => {
  const at = text.lastIndexOf(":")
  const requestId = text.slice(0, at)
  const digest = text.slice(at + 1)
  return at > 0 && /^[0-9a-fA-F]{64}$/.test(digest)
    ? Effect.succeed({ requestId, digest })
    : Effect.fail(
      new CommandFailed({
        message: "--receipt takes REQUEST_ID:DIGEST (meta.request_id and meta.receipt.digest of the answer)",
        exitCode: 2
      })
    )
}

const receipt = Options.text("receipt").pipe(
  Options.withPseudoName("REQUEST_ID:DIGEST"),
  Options.withDescription("Check one call's receipt, REQUEST_ID:DIGEST (meta.request_id and meta.receipt.digest of its answer)"),
  Options.optional
)

const verify = Command.make("verify", { ...database, receipt }, (options) =>
  Option.match(options.receipt, {
    onNone: () => Effect.flatMap(Effect.flatMap(AuditVerify, (v) => v.verify()), printReport),
    onSome: (text) =>
      Effect.flatMap(parseReceipt(text), ({ requestId, digest }) =>
        Effect.flatMap(Effect.flatMap(AuditVerify, (v) => v.receipt(requestId, digest)), printReceipt))
  }).pipe(Effect.provide(AdminLive), databaseSettings(options), Effect.flatMap(exitWith))).pipe(
    Command.withDescription(
      "Walk the audit hash chains and their signed checkpoints; exit 0 intact, 1 at the first break (named), 3 intact but signatures unchecked"
    )
  )

export const audit = Command.make("audit").pipe(
  Command.withDescription("The audit log"),
  Command.withSubcommands([verify])
)
