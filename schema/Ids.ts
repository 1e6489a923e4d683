import { Schema } from "effect"

export const ToolId = Schema.String.pipe(Schema.minLength(1), Schema.brand("ToolId"))
export type ToolId = typeof ToolId.Type

export const WorkspaceId = Schema.String.pipe(Schema.pattern(/^ws_[A-Za-z0-9]+$/), Schema.brand("WorkspaceId"))
export type WorkspaceId = typeof WorkspaceId.Type

export const ConnectionId = Schema.String.pipe(
  Schema.pattern(/^conn_[A-Za-z0-9]+$/, { message: () => "a connection id looks like conn_…" }),
  Schema.brand("ConnectionId")
)
export type ConnectionId = typeof ConnectionId.Type

export const ApiKeyId = Schema.String.pipe(Schema.pattern(/^key_[A-Za-z0-9]+$/), Schema.brand("ApiKeyId"))
export type ApiKeyId = typeof ApiKeyId.Type

export const RequestId = Schema.String.pipe(Schema.pattern(/^req_[A-Za-z0-9]+$/), Schema.brand("RequestId"))
export type RequestId = typeof RequestId.Type
