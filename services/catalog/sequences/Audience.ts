import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { regionName } from "../../../schema/geo/Region.ts"

const PersonRow = Schema.Struct({
  id: Schema.String,
  firstName: Schema.String,
  lastName: Schema.String,
  fullName: Schema.String,
  title: Schema.String,
  company: Schema.String,
  region: Schema.String,
  country: Schema.Literal("CL", "MX"),
  email: Schema.NullOr(Schema.String),
  /** The workspace revealed this person: a null email is then the directory's (it has none on file), not a missing reveal. */
  revealed: Schema.Boolean
})
export type AudiencePerson = typeof PersonRow.Type
const decodeRows = Schema.decodeUnknown(Schema.Array(PersonRow))

/** The merge fields of a person, as `{{…}}` variables read them. */
export const mergeFieldsOf = (person: AudiencePerson): Record<string, string> => ({
  first_name: person.firstName,
  last_name: person.lastName,
  full_name: person.fullName,
  title: person.title,
  company: person.company,
  region: regionName(person.region),
  country: person.country === "CL" ? "Chile" : "México",
  ...(person.email === null ? {} : { email: person.email })
})

/** People of the directory as a workspace may write to them: the email only when the workspace revealed it. */
export class Audience extends Effect.Service<Audience>()("brein/catalog/sequences/Audience", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const people = Effect.fn("Audience.people")(function* (workspaceId: string, ids: ReadonlyArray<string>) {
      if (ids.length === 0) return new Map<string, AudiencePerson>()
      const rows = yield* sql`SELECT p.id, p.first_name, p.last_name, p.full_name, p.title, c.trade_name AS company, p.region, p.country,
          CASE WHEN r.person_id IS NULL THEN NULL ELSE p.email END AS email, r.person_id IS NOT NULL AS revealed
        FROM people p JOIN companies c ON c.id = p.company_id
        LEFT JOIN revealed_contacts r ON r.workspace_id = ${workspaceId} AND r.person_id = p.id
        WHERE p.id IN ${sql.in(ids)}`.pipe(Effect.flatMap(decodeRows), Effect.orDie)
      return new Map(rows.map((row) => [row.id, row]))
    })

    return { people }
  })
}) {}
