import { type Effect, Schema } from "effect"
import type { ConnectionId, RequestId } from "./Ids.ts"
import { ApiKeyId, WorkspaceId } from "./Ids.ts"
import { Plan } from "./tools/Definition.ts"

export const Surface = Schema.Literal("http", "mcp", "luna", "library")
export type Surface = typeof Surface.Type

export class Principal extends Schema.Class<Principal>("Principal")({
  workspaceId: WorkspaceId,
  workspaceName: Schema.String,
  plan: Plan,
  keyId: Schema.NullOr(ApiKeyId)
}) {}

export interface ProgressUpdate {
  readonly progress: number
  readonly total?: number
  readonly message?: string
}

export interface CallContext {
  readonly surface: Surface
  readonly principal: Principal
  readonly connectionId?: ConnectionId | undefined
  readonly requestId?: RequestId | undefined
  /** The chat session the call is made in (Luna, in process); the session tools read and write its board. */
  readonly sessionId?: string | undefined
  /** Where a long call reports progress (MCP progress notifications); absent = nobody listens. */
  readonly onProgress?: ((update: ProgressUpdate) => Effect.Effect<void>) | undefined
}
