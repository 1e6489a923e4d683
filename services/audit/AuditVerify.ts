import { Effect, Option, Redacted } from "effect"
import type { AuditRow, ChainBreak, CheckpointReport, VerifyReport } from "../../schema/audit/AuditRow.ts"
import type { CheckpointHead, ReceiptCheck } from "../../schema/audit/Checkpoint.ts"
import { AuditKey } from "./AuditKey.ts"
import { AuditStore } from "./AuditStore.ts"
import { checkpointBreak as brokenCheckpoint, linkBreak } from "./Chain.ts"

const PAGE = 5000
const CHECKPOINT_PAGE = 1000
const CHECKPOINTS = "audit_checkpoint"

const inspect = (row: AuditRow, previous: { chain: string; seq: number; digest: string } | null): ChainBreak | null => {
  const broken = linkBreak(row, previous)
  return broken === null ? null : { chain: row.chain, seq: row.seq, requestId: row.requestId, ...broken }
}

const checkpointBreak = (seq: number, reason: ChainBreak["reason"], detail: string): ChainBreak => ({
  chain: CHECKPOINTS,
  seq,
  requestId: null,
  reason,
  detail
})

interface Walk {
  readonly report: VerifyReport
  /** The highest signed head of each chain. */
  readonly signed: ReadonlyMap<string, CheckpointHead>
}

/**
 * Walks the signed checkpoints (each signs its predecessor; the newest is also kept outside the
 * database), then every chain in order: the first row whose link does not hold, or a chain that
 * no longer reaches, or no longer matches, what a checkpoint signed, is reported by name.
 */
export class AuditVerify extends Effect.Service<AuditVerify>()("brein/audit/AuditVerify", {
  effect: Effect.gen(function* () {
    const store = yield* AuditStore
    const auditKey = yield* AuditKey

    const walk = Effect.fn("AuditVerify.walk")(function* () {
      const key = Option.map(yield* auditKey.forVerify, Redacted.value)
      const witness = yield* auditKey.readWitness(yield* store.database)
      const signed = new Map<string, CheckpointHead>()
      let last: Option.Option<{ seq: number; signature: string }> = Option.none()
      let count = 0
      let atWitness: string | null = null
      let firstBreak: ChainBreak | null = null
      while (firstBreak === null) {
        const page = yield* store.checkpoints(count, CHECKPOINT_PAGE)
        for (const checkpoint of page) {
          const broken = brokenCheckpoint(checkpoint, last, key)
          if (broken !== null) {
            firstBreak = checkpointBreak(broken.seq, broken.reason, broken.detail)
            break
          }
          count = checkpoint.seq
          last = Option.some(checkpoint)
          if (Option.isSome(witness) && witness.value.seq === checkpoint.seq) atWitness = checkpoint.signature
          for (const head of checkpoint.heads) {
            const known = signed.get(head.chain)
            if (known === undefined || known.seq <= head.seq) signed.set(head.chain, head)
          }
        }
        if (page.length < CHECKPOINT_PAGE) break
      }
      if (firstBreak === null && Option.isSome(witness)) {
        if (witness.value.seq > count) {
          firstBreak = checkpointBreak(
            witness.value.seq,
            "checkpoint_missing",
            `the witness outside the database holds checkpoint ${witness.value.seq}; the database ends at ${count}`
          )
        } else if (atWitness !== witness.value.signature) {
          firstBreak = checkpointBreak(
            witness.value.seq,
            "checkpoint_forged",
            `checkpoint ${witness.value.seq} differs from its witness outside the database`
          )
        }
      }

      let previous: { chain: string; seq: number; digest: string } | null = null
      let rows = 0
      let chains = 0
      let uncovered = 0
      const seen = new Set<string>()
      const endOfChain = (last: { chain: string; seq: number }): ChainBreak | null => {
        seen.add(last.chain)
        const head = signed.get(last.chain)
        uncovered += last.seq - Math.min(last.seq, head?.seq ?? 0)
        return head !== undefined && last.seq < head.seq
          ? {
            chain: last.chain,
            seq: last.seq,
            requestId: null,
            reason: "chain_truncated",
            detail: `the chain ends at seq ${last.seq}; a checkpoint signed seq ${head.seq}`
          }
          : null
      }
      while (firstBreak === null) {
        const after: Option.Option<{ chain: string; seq: number }> = previous === null ? Option.none() : Option.some(previous)
        const page: ReadonlyArray<AuditRow> = yield* store.page(after, PAGE)
        for (const row of page) {
          if (previous !== null && previous.chain !== row.chain) firstBreak = endOfChain(previous)
          if (firstBreak !== null) break
          if (previous === null || previous.chain !== row.chain) chains += 1
          firstBreak = inspect(row, previous)
          const head = signed.get(row.chain)
          if (firstBreak === null && head !== undefined && head.seq === row.seq && head.digest !== row.digest) {
            firstBreak = {
              chain: row.chain,
              seq: row.seq,
              requestId: row.requestId,
              reason: "rechained",
              detail: `checkpoint signed another digest at seq ${row.seq}`
            }
          }
          if (firstBreak !== null) break
          rows += 1
          previous = { chain: row.chain, seq: row.seq, digest: row.digest }
        }
        if (firstBreak === null && page.length < PAGE) {
          if (previous !== null) firstBreak = endOfChain(previous)
          break
        }
      }
      if (firstBreak === null) {
        const gone = [...signed.values()].filter((head) => !seen.has(head.chain)).sort((a, b) => (a.chain < b.chain ? -1 : 1))[0]
        if (gone !== undefined) {
          firstBreak = {
            chain: gone.chain,
            seq: gone.seq,
            requestId: null,
            reason: "chain_deleted",
            detail: `a checkpoint signed seq ${gone.seq}; the chain has no rows`
          }
        }
      }
      const checkpoints: CheckpointReport = {
        count,
        signatures: Option.isSome(key) ? "verified" : "unchecked",
        witness: atWitness !== null ? "matched" : "absent",
        uncovered
      }
      const report: VerifyReport = { ok: firstBreak === null, chains, rows, firstBreak, checkpoints }
      return { report, signed } satisfies Walk
    })

    const verify = Effect.fn("AuditVerify.verify")(function* () {
      return (yield* walk()).report
    })

    /** Whether the call of a client's receipt was recorded with that digest, in a log that verifies. */
    const receipt = Effect.fn("AuditVerify.receipt")(function* (requestId: string, digest: string) {
      const { report, signed } = yield* walk()
      const row = yield* store.byRequest(requestId, digest.toLowerCase())
      const check: ReceiptCheck = Option.match(row, {
        onNone: () => ({ requestId, status: "not_found", chain: null, seq: null, covered: false, traceId: null, report }),
        onSome: (r) => ({
          requestId,
          status: r.digest === digest.toLowerCase() ? "recorded" : "digest_differs",
          chain: r.chain,
          seq: r.seq,
          covered: (signed.get(r.chain)?.seq ?? 0) >= r.seq,
          traceId: r.traceId ?? null,
          report
        })
      })
      return check
    })

    return { verify, receipt }
  })
}) {}
