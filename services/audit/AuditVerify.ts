import { Effect, Option } from "effect"
import type { AuditRow, VerifyReport } from "../../schema/audit/AuditRow.ts"
import { AuditStore } from "./AuditStore.ts"
import { GENESIS, linkDigest } from "./Chain.ts"

const PAGE = 5000

type Break = NonNullable<VerifyReport["firstBreak"]>

const inspect = (row: AuditRow, previous: { chain: string; seq: number; digest: string } | null): Break | null => {
  const sameChain = previous !== null && previous.chain === row.chain
  const expectedSeq = sameChain ? previous.seq + 1 : 1
  const expectedPrev = sameChain ? previous.digest : GENESIS
  const at = { chain: row.chain, seq: row.seq, requestId: row.requestId }
  if (row.seq !== expectedSeq) return { ...at, reason: "sequence_gap" }
  if (row.prevDigest !== expectedPrev) return { ...at, reason: "prev_digest_mismatch" }
  if (linkDigest(row) !== row.digest) return { ...at, reason: "digest_mismatch" }
  return null
}

/** Walks every chain in order and reports the first row whose link does not hold. */
export class AuditVerify extends Effect.Service<AuditVerify>()("brein/audit/AuditVerify", {
  effect: Effect.gen(function* () {
    const store = yield* AuditStore
    const verify = Effect.fn("AuditVerify.verify")(function* () {
      let previous: { chain: string; seq: number; digest: string } | null = null
      let rows = 0
      let chains = 0
      while (true) {
        const after: Option.Option<{ chain: string; seq: number }> = previous === null ? Option.none() : Option.some(previous)
        const page: ReadonlyArray<AuditRow> = yield* store.page(after, PAGE)
        for (const row of page) {
          if (previous === null || previous.chain !== row.chain) chains += 1
          const broken = inspect(row, previous)
          if (broken !== null) return { ok: false, chains, rows, firstBreak: broken } satisfies VerifyReport
          rows += 1
          previous = { chain: row.chain, seq: row.seq, digest: row.digest }
        }
        if (page.length < PAGE) return { ok: true, chains, rows, firstBreak: null } satisfies VerifyReport
      }
    })
    return { verify }
  })
}) {}
