import type { SqlClient } from "@effect/sql"
import { Context } from "effect"
import type { ConnectionId, WorkspaceId } from "../../schema/Ids.ts"

export interface PersistApi {
  /** Runs inside the call's transaction: nothing is committed if the handler fails. */
  readonly sql: SqlClient.SqlClient
  readonly workspaceId: WorkspaceId
  readonly connectionId: ConnectionId
  readonly connector: string
}

/** The persistence buffer. Only the read-plane path provides it. */
export class Persist extends Context.Tag("brein/tools/Persist")<Persist, PersistApi>() {}
