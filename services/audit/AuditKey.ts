import { Context, type Effect, type Option, type Redacted } from "effect"

/** The last checkpoint a process signed, kept outside the database. */
export interface Witness {
  /** The database whose checkpoints it witnesses: one data folder may have served several. */
  readonly database: string
  readonly seq: number
  readonly signature: string
}

export interface AuditKeyApi {
  /** The checkpoint key to check signatures with: none when it is neither configured nor in the data folder. */
  readonly forVerify: Effect.Effect<Option.Option<Redacted.Redacted<Uint8Array>>>
  /**
   * The checkpoint key to sign with, generated into the data folder on first use when not configured;
   * none for operator commands, which leave the signing to the serving processes (one key signs).
   */
  readonly forSigning: Effect.Effect<Option.Option<Redacted.Redacted<Uint8Array>>>
  /** The witness file of the data folder, if there is one. */
  readonly readWitness: (database: string) => Effect.Effect<Option.Option<Witness>>
  /** Keeps the newest witness: an older checkpoint never replaces a newer one. */
  readonly writeWitness: (witness: Witness) => Effect.Effect<void>
}

/** The key that signs audit checkpoints: the database never holds it. */
export class AuditKey extends Context.Tag("brein/audit/AuditKey")<AuditKey, AuditKeyApi>() {}
