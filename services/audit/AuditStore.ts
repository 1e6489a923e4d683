import { Context, Data, type Effect, type Option } from "effect"
import type { AuditEntry, AuditRow } from "../../schema/audit/AuditRow.ts"

export class AuditStoreFailed extends Data.TaggedError("AuditStoreFailed")<{ readonly cause: unknown }> {}

export interface AuditStoreApi {
  /** Appends entries to one chain in a single transaction and returns the chained rows. */
  readonly append: (chain: string, entries: ReadonlyArray<AuditEntry>) => Effect.Effect<ReadonlyArray<AuditRow>, AuditStoreFailed>
  /** A page of rows in chain order, after the given (chain, seq). */
  readonly page: (
    after: Option.Option<{ readonly chain: string; readonly seq: number }>,
    limit: number
  ) => Effect.Effect<ReadonlyArray<AuditRow>, AuditStoreFailed>
  readonly byRequest: (requestId: string) => Effect.Effect<Option.Option<AuditRow>, AuditStoreFailed>
}

export class AuditStore extends Context.Tag("brein/audit/AuditStore")<AuditStore, AuditStoreApi>() {}
