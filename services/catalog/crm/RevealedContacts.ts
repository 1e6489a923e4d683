import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The emails of `personIds` this workspace has revealed (a paid reveal), by person id. Contact data
 * leaves the directory only through a reveal (people_reveal): a person the workspace has not revealed gets no email.
 */
export const revealedEmails = Effect.fn("RevealedContacts.emails")(function* (workspaceId: string, personIds: ReadonlyArray<string>) {
  const sql = yield* SqlClient.SqlClient
  if (personIds.length === 0) return new Map<string, string>()
  const rows = yield* sql<{ id: string; email: string }>`
    SELECT p.id, p.email FROM people p
    WHERE p.id IN ${sql.in(personIds)} AND p.email IS NOT NULL
      AND EXISTS (SELECT 1 FROM revealed_contacts r WHERE r.workspace_id = ${workspaceId} AND r.person_id = p.id)`
  return new Map(rows.map((row) => [row.id, row.email]))
}, Effect.orDie)
