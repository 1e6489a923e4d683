import { Context, Data, type Effect, type Option } from "effect"
import type { AuditEntry, AuditRow } from "../../schema/audit/AuditRow.ts"
import type { Checkpoint } from "../../schema/audit/Checkpoint.ts"
import { sqlState } from "../Database.ts"
import type { ChainHead, UnsignedCheckpoint } from "./Chain.ts"

export type { ChainHead } from "./Chain.ts"

/** The audit store's statement failed; its cause says why (the database's refusal, or the database being away). */
export class AuditStoreFailed extends Data.TaggedError("AuditStoreFailed")<{ readonly cause: unknown }> {
  override get message() {
    return "the audit store's statement failed"
  }
}

/**
 * The database answered and refused the statement (a bad value, a constraint), as opposed to being
 * unreachable (no SQLSTATE, connection exceptions, shutdown): only then is one row worth isolating.
 */
export const refusedByDatabase = (error: AuditStoreFailed) => {
  const state = sqlState(error.cause)
  return state !== undefined && !state.startsWith("08") && !state.startsWith("57")
}

/**
 * Another writer took a sequence number first, or the database broke a deadlock or a serialization
 * conflict between writers: re-read the chain's head and chain again.
 */
export class AuditChainMoved extends Data.TaggedError("AuditChainMoved")<{ readonly chains: ReadonlyArray<string> }> {}

/**
 * The database's last checkpoint was signed with another key than this process's: another process on the
 * same database signs with its own. Signing after it would make `brein audit verify` report
 * checkpoint_forged for good, so nothing is signed.
 */
export class AuditKeyForeign extends Data.TaggedError("AuditKeyForeign")<{ readonly seq: number }> {
  override get message() {
    return `checkpoint ${this.seq}, the database's last, was signed with another audit key than this server's: another server on ` +
      `this database signs with a key of its own. This server signs no checkpoint until it is restarted with that key ` +
      `(its audit.key, or BREIN_AUDIT_KEY); the rows it writes stay chained but uncovered`
  }
}

/** What a checkpoint is signed with: `sign` makes the signature, `signed` says whether a checkpoint's holds with the same key. */
export interface CheckpointSigner {
  readonly sign: (checkpoint: UnsignedCheckpoint) => string
  readonly signed: (checkpoint: Checkpoint) => boolean
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
  /**
   * The row of a request with that digest, else its first: a read call whose wait after its commit ended in an
   * error has a second row with its answer.
   */
  readonly byRequest: (requestId: string, digest: string) => Effect.Effect<Option.Option<AuditRow>, AuditStoreFailed>
  /**
   * Under one lock for every process: reads the last checkpoint and the given chains' heads, and
   * appends the next checkpoint, signed by `signer`. None when none of the chains has a row;
   * AuditKeyForeign, and nothing appended, when the last checkpoint's signature does not hold with the signer's key.
   */
  readonly checkpoint: (
    chains: ReadonlyArray<string>,
    signer: CheckpointSigner
  ) => Effect.Effect<Option.Option<Checkpoint>, AuditStoreFailed | AuditKeyForeign>
  /** A page of checkpoints in sequence order, after the given one. */
  readonly checkpoints: (afterSeq: number, limit: number) => Effect.Effect<ReadonlyArray<Checkpoint>, AuditStoreFailed>
  /**
   * The chains whose last row is dated after the last checkpoint was signed: written since by a process that signs none
   * (an operator's command), or by one that stopped before it signed. All of them when there is no checkpoint yet.
   */
  readonly writtenSinceCheckpoint: Effect.Effect<ReadonlyArray<string>, AuditStoreFailed>
  /** The database the log lives in, naming its witness outside the database. */
  readonly database: Effect.Effect<string, AuditStoreFailed>
}

export class AuditStore extends Context.Tag("brein/audit/AuditStore")<AuditStore, AuditStoreApi>() {}
