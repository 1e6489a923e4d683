import { Layer } from "effect"
import { AuditStoreSql } from "../services/audit/AuditStoreSql.ts"
import { AuditVerify } from "../services/audit/AuditVerify.ts"
import { Executor } from "../services/pipeline/Executor.ts"
import { Workspaces } from "../services/workspace/Workspaces.ts"
import { DatabaseLive } from "./Database.ts"
import { RegistryLive } from "./Registry.ts"

/** Everything the surfaces need, over a given database. */
export const ServicesLive = Layer.mergeAll(Executor.Default, Workspaces.Default, AuditVerify.Default).pipe(
  Layer.provideMerge(RegistryLive),
  Layer.provide(AuditStoreSql)
)

/** The one service graph of the program: services over the configured PostgreSQL. */
export const AppLive = ServicesLive.pipe(Layer.provideMerge(DatabaseLive))
