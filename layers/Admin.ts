import { Layer } from "effect"
import { AuditCoverage } from "../services/audit/AuditCoverage.ts"
import { AuditStoreSql } from "../services/audit/AuditStoreSql.ts"
import { AuditVerify } from "../services/audit/AuditVerify.ts"
import { ChangeAudit } from "../services/audit/ChangeAudit.ts"
import { Connections } from "../services/connections/Connections.ts"
import { Users } from "../services/humans/Users.ts"
import { Workspaces } from "../services/workspace/Workspaces.ts"
import { AuditKeyVerifyOnly } from "./AuditKey.ts"
import { DatabaseLive } from "./Database.ts"
import { VaultKeyLive } from "./Vault.ts"

/** What operator commands need (keys, workspaces, connections, audit): no sync worker, no upstreams, no HTTP. */
export const AdminLive = Layer.mergeAll(
  Workspaces.Default,
  Connections.Default,
  AuditVerify.Default,
  ChangeAudit.Default,
  AuditCoverage.Default,
  Users.Default
).pipe(
  Layer.provide(Layer.mergeAll(VaultKeyLive, AuditStoreSql, AuditKeyVerifyOnly)),
  Layer.provideMerge(DatabaseLive)
)
