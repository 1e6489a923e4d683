import { Context, type Effect, type Scope } from "effect"
import type { MissingPart, Progress } from "../../schema/connections/SyncJob.ts"
import type { UpstreamError } from "../../schema/upstream/Errors.ts"
import type { OpenedCredentials } from "../connections/Connections.ts"
import type { Persist } from "../tools/Persist.ts"
import type { JobRow } from "./SyncJobs.ts"

export interface SyncResult {
  readonly counts: Readonly<Record<string, number>>
  /** What could not be read (the job ends parcial and says so); null when everything was read. */
  readonly missing: { readonly message: string; readonly parts: ReadonlyArray<MissingPart> } | null
}

export interface SyncContext {
  readonly job: JobRow
  readonly report: (progress: Progress) => Effect.Effect<void>
}

/** One upstream login, shared by every job of the connection that runs under it. */
export interface SyncSession {
  /**
   * Reads one job's scope. What it returns is the write, which the worker runs with Persist in the
   * job's transaction, so a failed sync leaves nothing of its scope behind.
   */
  readonly read: (ctx: SyncContext) => Effect.Effect<Effect.Effect<SyncResult, never, Persist>, UpstreamError>
}

/** How one connector syncs: `login` and the session's `read` are the only code that talks to the upstream. */
export interface ConnectorSync {
  readonly connector: string
  /** Steps of a job's progress, the login being the first: the total is known when the job is queued. */
  readonly steps: number
  readonly login: (login: OpenedCredentials) => Effect.Effect<SyncSession, UpstreamError, Scope.Scope>
}

export class ConnectorSyncs extends Context.Tag("brein/sync/ConnectorSyncs")<ConnectorSyncs, ReadonlyMap<string, ConnectorSync>>() {}
