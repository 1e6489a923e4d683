import { Layer } from "effect"
import { AppLive, servicesWith } from "../layers/App.ts"
import { CrmToolsLive } from "../layers/Crm.ts"
import { DatabaseLive } from "../layers/Database.ts"
import { IndicadoresLive } from "../layers/Indicadores.ts"
import { sources as builtIn } from "../layers/Registry.ts"
import { catalog, connector, type Source } from "../services/tools/Source.ts"
import { action, connectedAction, read } from "../services/tools/Tool.ts"

export * from "../schema/Errors.ts"
export { CurrentHuman, Human, User } from "../schema/humans/Human.ts"
export { AnchorsInput, AnchorsReport } from "../schema/luna/Anchors.ts"
export { FollowEvent, LunaEvent, StreamResume } from "../schema/luna/Events.ts"
export type { ModelReply, ModelRequest } from "../schema/luna/Model.ts"
export { Outcome } from "../schema/luna/Outcome.ts"
export type { CallContext, Principal, Surface } from "../schema/Principal.ts"
export type { CallPolicy, Descriptor, Hints, Plan, Plane, Stage, ToolDocument } from "../schema/tools/Definition.ts"
export type { ToolResponse } from "../schema/tools/Response.ts"
export { AuditVerify } from "../services/audit/AuditVerify.ts"
export { Activation } from "../services/humans/Activation.ts"
export { Users } from "../services/humans/Users.ts"
export { stripRefTokens } from "../services/luna/anchors/RefTokens.ts"
export { anchoredOnly, checkAnchors } from "../services/luna/anchors/Validate.ts"
export { Luna } from "../services/luna/Luna.ts"
export { ModelGateway, type ModelGatewayApi } from "../services/luna/ModelGateway.ts"
export { Executor } from "../services/pipeline/Executor.ts"
export { RegistryInvalid } from "../services/tools/Invariants.ts"
export { Persist, type PersistApi } from "../services/tools/Persist.ts"
export { type RegisteredTool, Registry } from "../services/tools/Registry.ts"
export type { ActionContext, AfterCommitContext, ConnectedContext, ReadContext, Tool as ToolDefinition } from "../services/tools/Tool.ts"
export { Workspaces } from "../services/workspace/Workspaces.ts"
export { AppLive, DatabaseLive }

/** The definition API: `Tool.action({...})`, `Tool.connectedAction({...})`, `Tool.read({...})`, grouped with `Tool.connector` / `Tool.catalog`. */
export const Tool = { action, connectedAction, read, connector, catalog } as const

/**
 * brein in-process: the built-in connectors plus yours, over PostgreSQL (DATABASE_URL, or the
 * embedded server under BREIN_DATA_DIR). Provide it to a program that uses Executor, Workspaces…
 */
export const layer = <const S extends ReadonlyArray<Source>>(extra: S) =>
  servicesWith([...builtIn, ...extra]).pipe(Layer.provide(IndicadoresLive), Layer.provide(CrmToolsLive), Layer.provideMerge(DatabaseLive))
