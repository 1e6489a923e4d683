import { Array as Arr, Effect, Option, Schema } from "effect"
import { Channel, Signals } from "../Signals.ts"
import { AuditKey } from "./AuditKey.ts"
import { AuditLog } from "./AuditLog.ts"
import { AuditStore } from "./AuditStore.ts"

/** The chains of one signal: workspace ids are ~25 characters, and a NOTIFY payload is at most 8,000 bytes. */
const PER_SIGNAL = 200
const Chains = Schema.parseJson(Schema.Array(Schema.String))
const decodeChains = Schema.decodeUnknown(Chains)
const encodeChains = Schema.encodeSync(Chains)

/**
 * Every audit row gets under a signed checkpoint, whichever process wrote it. An operator's command (`brein keys
 * create`, `users link`…) signs none: when it ends it signals the chains it wrote, and every serving process signs
 * their heads at its next checkpoint. A serving process also signs, when it starts, the chains written after the
 * last checkpoint (while no server listened). Before, such a row stayed uncovered until a server wrote in its chain,
 * which for a revoked key's workspace may be never.
 */
export class AuditCoverage extends Effect.Service<AuditCoverage>()("brein/audit/AuditCoverage", {
  scoped: Effect.gen(function* () {
    const log = yield* AuditLog
    const signals = yield* Signals
    const signs = Option.isSome(yield* (yield* AuditKey).forSigning)
    const store = yield* AuditStore

    const hand = Effect.fn("AuditCoverage.hand")(function* () {
      const chains = yield* log.unsigned
      yield* Effect.forEach(Arr.chunksOf(chains, PER_SIGNAL), (some) => signals.publish(Channel.audit, encodeChains(some)), {
        discard: true
      })
    })
    const heard = (payload: string) =>
      decodeChains(payload).pipe(
        Effect.flatMap(log.cover),
        Effect.catchAllCause((cause) => Effect.logWarning("an audit coverage signal could not be read", cause))
      )

    const serve = Effect.zipRight(
      signals.on(Channel.audit, heard),
      store.writtenSinceCheckpoint.pipe(
        Effect.flatMap(log.cover),
        Effect.catchAllCause((cause) =>
          Effect.logWarning("could not read which audit chains were written since the last checkpoint", cause)
        )
      )
    )
    // after the command's own rows: this finalizer runs before the log's, whose scope opened first
    const command = Effect.addFinalizer(() =>
      hand().pipe(Effect.catchAllCause((cause) => Effect.logWarning("the audit rows written could not be handed to the servers", cause)))
    )
    yield* signs ? serve : command
    /** Whether this process signs checkpoints (a server) or hands its chains to those that do (an operator's command). */
    return { signs: signs as boolean }
  }),
  dependencies: [AuditLog.Default, Signals.Default]
}) {}
