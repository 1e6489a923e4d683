import { SqlClient } from "@effect/sql"
import { Clock, Effect, Schema } from "effect"
import type { Principal } from "../../../schema/Principal.ts"

const PersonRow = Schema.Struct({
  id: Schema.String,
  fullName: Schema.String,
  title: Schema.String,
  companyId: Schema.String,
  email: Schema.NullOr(Schema.String),
  phone: Schema.NullOr(Schema.String),
  owned: Schema.Boolean
})
const decodePeople = Schema.decodeUnknown(Schema.Array(PersonRow))
const CompanyRow = Schema.Struct({
  id: Schema.String,
  legalName: Schema.String,
  revenueEstimate: Schema.NumberFromString,
  employees: Schema.Int,
  phone: Schema.NullOr(Schema.String),
  linkedinUrl: Schema.NullOr(Schema.String),
  owned: Schema.Boolean
})
const decodeCompanies = Schema.decodeUnknown(Schema.Array(CompanyRow))
const Claimed = Schema.Struct({ id: Schema.String })
const decodeClaimed = Schema.decodeUnknown(Schema.Array(Claimed))

export type PersonRow = typeof PersonRow.Type
export type CompanyRow = typeof CompanyRow.Type

/** What a workspace bought from the directory: contacts it revealed and companies it enriched (asked again, free). */
export class Owned extends Effect.Service<Owned>()("brein/catalog/Owned", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

    const people = Effect.fn("Owned.people")(function* (principal: Principal, ids: ReadonlyArray<string>) {
      return yield* sql`SELECT p.id, p.full_name, p.title, p.company_id, p.email, p.phone, (r.person_id IS NOT NULL) AS owned
        FROM people p LEFT JOIN revealed_contacts r ON r.workspace_id = ${principal.workspaceId} AND r.person_id = p.id
        WHERE p.id IN ${sql.in(ids)}`.pipe(Effect.flatMap(decodePeople), Effect.orDie)
    })

    /** Records the reveals; answers the ids this call revealed (one revealed at the same time elsewhere is not). */
    const reveal = Effect.fn("Owned.reveal")(function* (principal: Principal, ids: ReadonlyArray<string>, requestId: string) {
      if (ids.length === 0) return new Set<string>()
      const at = yield* now
      const rows = yield* sql`INSERT INTO revealed_contacts (workspace_id, person_id, revealed_at, request_id)
        SELECT ${principal.workspaceId}, id, ${at}, ${requestId} FROM unnest(${ids}::text[]) AS id
        ON CONFLICT DO NOTHING RETURNING person_id AS id`.pipe(Effect.flatMap(decodeClaimed), Effect.orDie)
      return new Set(rows.map((r) => r.id))
    })

    const companies = Effect.fn("Owned.companies")(function* (principal: Principal, ids: ReadonlyArray<string>) {
      return yield* sql`SELECT c.id, c.legal_name, c.revenue_estimate::text AS revenue_estimate, c.employees, c.phone,
          c.linkedin_url, (e.company_id IS NOT NULL) AS owned
        FROM companies c LEFT JOIN enriched_companies e ON e.workspace_id = ${principal.workspaceId} AND e.company_id = c.id
        WHERE c.id IN ${sql.in(ids)}`.pipe(Effect.flatMap(decodeCompanies), Effect.orDie)
    })

    const enrich = Effect.fn("Owned.enrich")(function* (principal: Principal, ids: ReadonlyArray<string>, requestId: string) {
      if (ids.length === 0) return new Set<string>()
      const at = yield* now
      const rows = yield* sql`INSERT INTO enriched_companies (workspace_id, company_id, enriched_at, request_id)
        SELECT ${principal.workspaceId}, id, ${at}, ${requestId} FROM unnest(${ids}::text[]) AS id
        ON CONFLICT DO NOTHING RETURNING company_id AS id`.pipe(Effect.flatMap(decodeClaimed), Effect.orDie)
      return new Set(rows.map((r) => r.id))
    })

    return { people, reveal, companies, enrich }
  })
}) {}
