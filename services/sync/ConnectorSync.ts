import { Context, type Effect, type Scope } from "effect"
import type { Progress } from "../../schema/connections/SyncJob.ts"
import type { UpstreamError } from "../../schema/upstream/Errors.ts"
import type { OpenedCredentials } from "../connections/Connections.ts"
import type { Persist } from "../pipeline/Persist.ts"
import type { JobRow } from "./SyncJobs.ts"

export interface SyncResult {
  readonly completo: boolean
  readonly counts: Readonly<Record<string, number>>
}

export interface SyncContext {
  readonly job: JobRow
  readonly login: OpenedCredentials
  readonly report: (progress: Progress) => Effect.Effect<void>
}

/**
 * How one connector syncs a scope. `fetch` is the only code that talks to the upstream (log in,
 * read, normalize); what it returns is the write, which the worker runs with Persist in the job's
 * transaction, so a failed sync leaves nothing of its scope behind.
 */
export interface ConnectorSync {
  readonly connector: string
  readonly fetch: (ctx: SyncContext) => Effect.Effect<Effect.Effect<SyncResult, never, Persist>, UpstreamError, Scope.Scope>
}

export class ConnectorSyncs extends Context.Tag("brein/sync/ConnectorSyncs")<ConnectorSyncs, ReadonlyMap<string, ConnectorSync>>() {}
