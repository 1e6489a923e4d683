import { Schema } from "effect"

/** Every tool id has this shape: dot-separated snake_case words (`core.timestamp.now`, `companies_search`). */
export const TOOL_ID_PATTERN = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$/
export const TOOL_ID_MAX = 128

/** The longest id any route's path holds (a tool id's): the router matches no longer segment. */
export const MAX_PATH_PARAM = TOOL_ID_MAX

export const ToolId = Schema.String.pipe(
  Schema.maxLength(TOOL_ID_MAX),
  Schema.pattern(TOOL_ID_PATTERN, { message: () => "must be a tool id like core.timestamp.now" }),
  Schema.brand("ToolId")
)
export type ToolId = typeof ToolId.Type

/** The edge's check, without a Schema decode on the hot path: the length first, so a huge name costs nothing. */
export const isToolId = (raw: unknown): raw is ToolId => typeof raw === "string" && raw.length <= TOOL_ID_MAX && TOOL_ID_PATTERN.test(raw)

export const WorkspaceId = Schema.String.pipe(Schema.pattern(/^ws_[A-Za-z0-9]+$/), Schema.brand("WorkspaceId"))
export type WorkspaceId = typeof WorkspaceId.Type

/** The longest id brein makes (a prefix, `_` and letters and digits). */
const ID_MAX = 64
const ID_BODY = /^[A-Za-z0-9]+$/

/**
 * Whether `raw` has the shape of an id brein makes with `prefix` (`conn`, `ses`, `sq`…): any other text
 * names nothing, and is answered as not found without a query (a NUL byte, which PostgreSQL cannot
 * hold in text, would fail one).
 */
export const hasIdShape = (prefix: string, raw: string) =>
  raw.length <= ID_MAX && raw.startsWith(`${prefix}_`) && ID_BODY.test(raw.slice(prefix.length + 1))

export const CONNECTION_ID_MAX = ID_MAX

export const ConnectionId = Schema.String.pipe(
  Schema.maxLength(CONNECTION_ID_MAX),
  Schema.pattern(/^conn_[A-Za-z0-9]+$/, { message: () => "must be a connection id (conn_…)" }),
  Schema.brand("ConnectionId")
)
export type ConnectionId = typeof ConnectionId.Type

export const isConnectionId = (raw: unknown): raw is ConnectionId => typeof raw === "string" && hasIdShape("conn", raw)

export const ApiKeyId = Schema.String.pipe(Schema.pattern(/^key_[A-Za-z0-9]+$/), Schema.brand("ApiKeyId"))
export type ApiKeyId = typeof ApiKeyId.Type

export const RequestId = Schema.String.pipe(Schema.pattern(/^req_[A-Za-z0-9]+$/), Schema.brand("RequestId"))
export type RequestId = typeof RequestId.Type
