import { SqlClient } from "@effect/sql"
import { DateTime, Effect, Schema } from "effect"
import { SuppressionReason } from "../../../schema/catalog/Sequences.ts"

export const SuppressionRow = Schema.Struct({
  address: Schema.String,
  reason: SuppressionReason,
  source: Schema.String,
  at: Schema.DateFromSelf
})
export type SuppressionRow = typeof SuppressionRow.Type
const decodeRows = Schema.decodeUnknown(Schema.Array(SuppressionRow))

/** `@domain` of an address (lowercase): how a blocked domain is stored. */
export const domainOf = (email: string) => {
  const at = email.lastIndexOf("@")
  return at < 0 ? "" : email.slice(at).toLowerCase()
}

/**
 * Addresses a workspace must not write to: unsubscribed, bounced, complained, registered in No
 * Molestar or REPEP, or of a blocked domain (stored as `@domain`). The dispatcher adds to it on a
 * bounce or an unsubscribe; a later reason replaces an earlier one.
 */
export class Suppressions extends Effect.Service<Suppressions>()("brein/catalog/sequences/Suppressions", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const add = Effect.fn("Suppressions.add")(
      function* (workspaceId: string, address: string, reason: SuppressionReason, source: string) {
        const at = DateTime.toDateUtc(yield* DateTime.now)
        const normalized = address.trim().toLowerCase()
        yield* sql`INSERT INTO suppressions (workspace_id, address, reason, source, at)
          VALUES (${workspaceId}, ${normalized}, ${reason}, ${source}, ${at})
          ON CONFLICT (workspace_id, address) DO UPDATE SET reason = EXCLUDED.reason, source = EXCLUDED.source, at = EXCLUDED.at`
          .pipe(Effect.orDie)
        return { address: normalized, reason, source, at } satisfies SuppressionRow
      }
    )

    const list = Effect.fn("Suppressions.list")(function* (workspaceId: string) {
      return yield* sql`SELECT address, reason, source, at FROM suppressions WHERE workspace_id = ${workspaceId} ORDER BY at, address`
        .pipe(Effect.flatMap(decodeRows), Effect.orDie)
    })

    /** The reason each of these emails is suppressed (its own address first, then its domain); unlisted ones are not. */
    const reasons = Effect.fn("Suppressions.reasons")(function* (workspaceId: string, emails: ReadonlyArray<string>) {
      const found = new Map<string, SuppressionReason>()
      if (emails.length === 0) return found
      const keys = [...new Set(emails.flatMap((e) => [e.toLowerCase(), domainOf(e)]))]
      const rows = yield* sql`SELECT address, reason, source, at FROM suppressions
        WHERE workspace_id = ${workspaceId} AND address IN ${sql.in(keys)}`.pipe(Effect.flatMap(decodeRows), Effect.orDie)
      const byAddress = new Map(rows.map((r) => [r.address, r.reason]))
      for (const email of emails) {
        const reason = byAddress.get(email.toLowerCase()) ?? byAddress.get(domainOf(email))
        if (reason !== undefined) found.set(email, reason)
      }
      return found
    })

    return { add, list, reasons }
  })
}) {}
