import { Schema } from "effect"
import { maxLength } from "./Length.ts"

/** Every tool id has this shape: dot-separated snake_case words (`core.timestamp.now`, `companies_search`). */
export const TOOL_ID_PATTERN = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$/
export const TOOL_ID_MAX = 128

/** The longest id any route's path holds (a tool id's): the router matches no longer segment. */
export const MAX_PATH_PARAM = TOOL_ID_MAX

export const ToolId = Schema.String.pipe(
  maxLength(TOOL_ID_MAX),
  Schema.pattern(TOOL_ID_PATTERN, { message: () => "must be a tool id like core.timestamp.now" }),
  Schema.brand("ToolId")
)
export type ToolId = typeof ToolId.Type

/** The edge's check, without a Schema decode on the hot path: the length first, so a huge name costs nothing. */
export const isToolId = (raw: unknown): raw is ToolId => typeof raw === "string" && raw.length <= TOOL_ID_MAX && TOOL_ID_PATTERN.test(raw)

/** The longest id brein makes. */
const ID_MAX = 64

/**
 * The shape of every id brein makes with `prefix` (`ws`, `conn`, `ses`, `sq`…): the prefix, `_`, then
 * letters and digits, at most 64 characters in all. Any other text names nothing, and is answered as
 * not found without a query (a NUL byte, which PostgreSQL cannot hold in text, would fail one).
 */
const idShape = (prefix: string) => {
  const pattern = new RegExp(`^${prefix}_[A-Za-z0-9]+$`)
  return {
    pattern,
    is: (raw: unknown): raw is string => typeof raw === "string" && raw.length <= ID_MAX && pattern.test(raw)
  }
}

/** The same shape as a schema (its pattern shows in the OpenAPI document). */
const idSchema = (shape: ReturnType<typeof idShape>, message?: string) =>
  Schema.String.pipe(
    maxLength(ID_MAX),
    Schema.pattern(shape.pattern, message === undefined ? undefined : { message: () => message })
  )

const workspaceShape = idShape("ws")
export const WorkspaceId = idSchema(workspaceShape).pipe(Schema.brand("WorkspaceId"))
export type WorkspaceId = typeof WorkspaceId.Type

const connectionShape = idShape("conn")
export const ConnectionId = idSchema(connectionShape, "must be a connection id (conn_…)").pipe(Schema.brand("ConnectionId"))
export type ConnectionId = typeof ConnectionId.Type
export const isConnectionId = (raw: unknown): raw is ConnectionId => connectionShape.is(raw)

export const ApiKeyId = idSchema(idShape("key")).pipe(Schema.brand("ApiKeyId"))
export type ApiKeyId = typeof ApiKeyId.Type

export const RequestId = idSchema(idShape("req")).pipe(Schema.brand("RequestId"))
export type RequestId = typeof RequestId.Type

/** A Luna session's id (`ses_…`), by the same rule. */
export const isSessionId = idShape("ses").is
/** A sequence's id (`sq_…`), by the same rule. */
export const isSequenceId = idShape("sq").is
