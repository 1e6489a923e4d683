import { SqlClient } from "@effect/sql"
import { DateTime, Effect, Option, Schema } from "effect"
import { decodeMailboxName } from "../../../schema/catalog/MailboxName.ts"
import { newId } from "../../Ids.ts"

export const MailboxRow = Schema.Struct({
  id: Schema.String,
  workspaceId: Schema.String,
  email: Schema.String,
  displayName: Schema.String,
  grantId: Schema.String,
  spf: Schema.Boolean,
  dkim: Schema.Boolean,
  dmarc: Schema.Boolean,
  dailyCap: Schema.Int,
  minSpacingSeconds: Schema.Int,
  createdAt: Schema.DateFromSelf
})
export type MailboxRow = typeof MailboxRow.Type
const decodeRows = Schema.decodeUnknown(Schema.Array(MailboxRow))

export interface NewMailbox {
  readonly email: string
  readonly displayName: string
  readonly dailyCap: number
  readonly minSpacingSeconds: number
  readonly spf: boolean
  readonly dkim: boolean
  readonly dmarc: boolean
}

/** A workspace's sender mailboxes: grants at the mail provider with what it reports of the domain's authentication. */
export class Mailboxes extends Effect.Service<Mailboxes>()("brein/catalog/sequences/Mailboxes", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /** Adds the mailbox (its name trimmed), or none when the workspace has one of that address; a bad name is MailboxNameInvalid. */
    const add = Effect.fn("Mailboxes.add")(function* (workspaceId: string, mailbox: NewMailbox) {
      const displayName = yield* decodeMailboxName(mailbox.displayName)
      const id = yield* newId("mb")
      const grantId = yield* newId("grant")
      const now = DateTime.toDateUtc(yield* DateTime.now)
      const rows = yield* sql`INSERT INTO mailboxes (id, workspace_id, email, display_name, grant_id, spf, dkim, dmarc, daily_cap,
          min_spacing_seconds, created_at)
        VALUES (${id}, ${workspaceId}, ${mailbox.email.toLowerCase()}, ${displayName}, ${grantId}, ${mailbox.spf}, ${mailbox.dkim},
          ${mailbox.dmarc}, ${mailbox.dailyCap}, ${mailbox.minSpacingSeconds}, ${now})
        ON CONFLICT (workspace_id, email) DO NOTHING RETURNING *`.pipe(Effect.flatMap(decodeRows), Effect.orDie)
      return Option.fromNullable(rows[0])
    })

    const list = Effect.fn("Mailboxes.list")(function* (workspaceId: string) {
      return yield* sql`SELECT * FROM mailboxes WHERE workspace_id = ${workspaceId} ORDER BY created_at, id`.pipe(
        Effect.flatMap(decodeRows),
        Effect.orDie
      )
    })

    /** The workspace's mailbox by id; another workspace's is none. */
    const find = Effect.fn("Mailboxes.find")(function* (workspaceId: string, id: string) {
      const rows = yield* sql`SELECT * FROM mailboxes WHERE workspace_id = ${workspaceId} AND id = ${id}`.pipe(
        Effect.flatMap(decodeRows),
        Effect.orDie
      )
      return Option.fromNullable(rows[0])
    })

    return { add, list, find }
  })
}) {}
