import { Context, Data, type Effect, type Option } from "effect"
import type { AuditEntry, AuditRow } from "../../schema/audit/AuditRow.ts"

export class AuditStoreFailed extends Data.TaggedError("AuditStoreFailed")<{ readonly cause: unknown }> {}

/** Another writer took a sequence number first: re-read the chain's head and chain again. */
export class AuditChainMoved extends Data.TaggedError("AuditChainMoved")<{ readonly chains: ReadonlyArray<string> }> {}

export interface ChainHead {
  readonly seq: number
  readonly digest: string
}

export interface AuditStoreApi {
  /** Serializes the writers of one chain that hold a transaction, until that transaction ends. */
  readonly lock: (chain: string) => Effect.Effect<void, AuditStoreFailed>
  /** The last link of each chain (chains with no rows are absent). */
  readonly heads: (chains: ReadonlyArray<string>) => Effect.Effect<ReadonlyMap<string, ChainHead>, AuditStoreFailed>
  /**
   * Inserts chained rows in one statement. (chain, seq) is unique, so a row whose seq another
   * writer already took fails the whole statement with AuditChainMoved and writes nothing.
   */
  readonly insert: (rows: ReadonlyArray<AuditRow>) => Effect.Effect<void, AuditStoreFailed | AuditChainMoved>
  /**
   * The slow, certain way: in one transaction, take every chain's lock, read the heads, chain the
   * entries and insert them. Used when the fast insert lost a race.
   */
  readonly appendLocked: (entries: ReadonlyArray<AuditEntry>) => Effect.Effect<ReadonlyArray<AuditRow>, AuditStoreFailed | AuditChainMoved>
  /** The same inside the caller's transaction, behind a savepoint: a conflict does not abort the caller. */
  readonly insertNested: (rows: ReadonlyArray<AuditRow>) => Effect.Effect<void, AuditStoreFailed | AuditChainMoved>
  /** A page of rows in chain order, after the given (chain, seq). */
  readonly page: (
    after: Option.Option<{ readonly chain: string; readonly seq: number }>,
    limit: number
  ) => Effect.Effect<ReadonlyArray<AuditRow>, AuditStoreFailed>
  readonly byRequest: (requestId: string) => Effect.Effect<Option.Option<AuditRow>, AuditStoreFailed>
}

export class AuditStore extends Context.Tag("brein/audit/AuditStore")<AuditStore, AuditStoreApi>() {}
