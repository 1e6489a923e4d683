import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import type { AuditEntry, VerifyReport } from "../../../schema/audit/AuditRow.ts"
import { AuditLog } from "../../../services/audit/AuditLog.ts"
import { AuditStoreSql } from "../../../services/audit/AuditStoreSql.ts"
import { AuditVerify } from "../../../services/audit/AuditVerify.ts"
import { auditKeyInTemp } from "../../support/TestAuditKey.ts"
import { TestDatabase } from "../../support/TestDatabase.ts"

/** As an attacker with the owner's or a superuser's rights would: the append-only triggers switched off. */
export const tamper = (statement: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql.withTransaction(Effect.zipRight(sql.unsafe("SET LOCAL session_replication_role = replica"), sql.unsafe(statement)))
  )

export const where = (report: VerifyReport) =>
  report.firstBreak && [report.firstBreak.chain, report.firstBreak.seq, report.firstBreak.reason]

let counter = 0

export const entry = (workspaceId: string, more: Partial<AuditEntry> = {}): AuditEntry => ({
  requestId: `req_t${++counter}`,
  at: new Date(1_700_000_000_000 + counter),
  workspaceId,
  principal: "in-process:library",
  surface: "library",
  toolId: "echo.message.reflect",
  plane: "action",
  connectionId: null,
  inputDigest: "0".repeat(64),
  outputDigest: "1".repeat(64),
  outcome: "ok",
  errorTag: null,
  latencyMs: 1,
  cost: "free",
  ...more
})

export const recordMany = (workspaceId: string, count: number) =>
  Effect.flatMap(AuditLog, (log) => Effect.forEach(Array.from({ length: count }, () => entry(workspaceId)), (e) => log.record(e)))

/** The audit writer and verify over their own database and a checkpoint key in a data folder of their own. */
export const AuditServices = Layer.mergeAll(AuditLog.Default, AuditVerify.Default).pipe(
  Layer.provideMerge(Layer.merge(AuditStoreSql, auditKeyInTemp)),
  Layer.provideMerge(TestDatabase)
)
