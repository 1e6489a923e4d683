import { SqlClient } from "@effect/sql"
import { Clock, Effect, Schema } from "effect"
import { DEFAULT_COMPANIES, DEFAULT_SEED, directoryBatches, type GeneratedCompany } from "./Generator.ts"

const COMPANY_COLUMNS = [
  ["id", "text"],
  ["country", "text"],
  ["tax_id", "text"],
  ["legal_name", "text"],
  ["trade_name", "text"],
  ["industry", "text"],
  ["giro", "text"],
  ["size", "text"],
  ["employees", "int4"],
  ["region", "text"],
  ["city", "text"],
  ["domain", "text"],
  ["founded_year", "int4"],
  ["revenue_estimate", "int8"],
  ["phone", "text"],
  ["linkedin_url", "text"]
] as const

const PERSON_COLUMNS = [
  ["id", "text"],
  ["company_id", "text"],
  ["first_name", "text"],
  ["last_name", "text"],
  ["full_name", "text"],
  ["title", "text"],
  ["department", "text"],
  ["seniority", "text"],
  ["country", "text"],
  ["region", "text"],
  ["email", "text"],
  ["phone", "text"],
  ["linkedin_url", "text"]
] as const

const insert = (table: string, columns: ReadonlyArray<readonly [string, string]>) =>
  `INSERT INTO ${table} (${columns.map(([c]) => c).join(", ")}) SELECT * FROM unnest(${
    columns.map(([, t], i) => `$${i + 1}::${t}[]`).join(", ")
  })`

const INSERT_COMPANIES = insert("companies", COMPANY_COLUMNS)
const INSERT_PEOPLE = insert("people", PERSON_COLUMNS)

const companyArrays = (batch: ReadonlyArray<GeneratedCompany>) => {
  const cs = batch.map((g) => g.company)
  return [
    cs.map((c) => c.id),
    cs.map((c) => c.country),
    cs.map((c) => c.taxId),
    cs.map((c) => c.legalName),
    cs.map((c) => c.tradeName),
    cs.map((c) => c.industry),
    cs.map((c) => c.giro),
    cs.map((c) => c.size),
    cs.map((c) => c.employees),
    cs.map((c) => c.region),
    cs.map((c) => c.city),
    cs.map((c) => c.domain),
    cs.map((c) => c.foundedYear),
    cs.map((c) => c.revenueEstimate),
    cs.map((c) => c.phone),
    cs.map((c) => c.linkedinUrl)
  ]
}

const personArrays = (batch: ReadonlyArray<GeneratedCompany>) => {
  const ps = batch.flatMap((g) => g.people)
  return [
    ps.map((p) => p.id),
    ps.map((p) => p.companyId),
    ps.map((p) => p.firstName),
    ps.map((p) => p.lastName),
    ps.map((p) => p.fullName),
    ps.map((p) => p.title),
    ps.map((p) => p.department),
    ps.map((p) => p.seniority),
    ps.map((p) => p.country),
    ps.map((p) => p.region),
    ps.map((p) => p.email),
    ps.map((p) => p.phone),
    ps.map((p) => p.linkedinUrl)
  ]
}

const IndexRow = Schema.Struct({ indexname: Schema.String, indexdef: Schema.String })
const Counts = Schema.Struct({ companies: Schema.Int, people: Schema.Int })

export interface SeedOptions {
  readonly seed: string
  readonly companies: number
}

export interface Seeded {
  readonly seed: string
  readonly companies: number
  readonly people: number
  readonly millis: number
}

// Two processes starting on an empty database load it once: the second waits, then finds it full.
const SEED_LOCK = 7_251_113

/** Loads the generated directory: all or nothing, replacing whatever directory was there. */
export class DirectorySeed extends Effect.Service<DirectorySeed>()("brein/catalog/empresas/DirectorySeed", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const exec = (text: string, params: ReadonlyArray<unknown> = []) => Effect.orDie(sql.unsafe(text, params))

    const counts = Effect.fn("DirectorySeed.counts")(function* () {
      const rows = yield* exec("SELECT (SELECT count(*)::int FROM companies) AS companies, (SELECT count(*)::int FROM people) AS people")
      return yield* Effect.orDie(Schema.decodeUnknown(Counts)(rows[0]))
    })

    const fill = Effect.fn("DirectorySeed.fill")(function* (options: SeedOptions) {
      const started = yield* Clock.currentTimeMillis
      yield* exec("TRUNCATE companies, people")
      // Secondary indexes are built once over the loaded rows, not maintained row by row (a GIN index especially).
      const indexes = yield* exec(
        `SELECT i.indexname, i.indexdef FROM pg_indexes i
         WHERE i.schemaname = current_schema() AND i.tablename IN ('companies', 'people')
           AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conname = i.indexname)`
      ).pipe(Effect.flatMap(Schema.decodeUnknown(Schema.Array(IndexRow))), Effect.orDie)
      for (const index of indexes) yield* exec(`DROP INDEX ${index.indexname}`)
      for (const batch of directoryBatches(options.seed, options.companies)) {
        yield* exec(INSERT_COMPANIES, companyArrays(batch))
        yield* exec(INSERT_PEOPLE, personArrays(batch))
      }
      for (const index of indexes) yield* exec(index.indexdef)
      yield* exec("ANALYZE companies")
      yield* exec("ANALYZE people")
      const loaded = yield* counts()
      return { seed: options.seed, ...loaded, millis: (yield* Clock.currentTimeMillis) - started }
    })

    /** Replaces the directory with the one of `seed`, in one transaction. */
    const load = Effect.fn("DirectorySeed.load")(function* (options: SeedOptions) {
      return yield* sql.withTransaction(Effect.zipRight(exec(`SELECT pg_advisory_xact_lock(${SEED_LOCK})`), fill(options))).pipe(
        Effect.orDie
      )
    })

    /** Loads the default directory when there is none yet; None when one was there. */
    const loadIfEmpty = Effect.fn("DirectorySeed.loadIfEmpty")(
      function* (options: SeedOptions = { seed: DEFAULT_SEED, companies: DEFAULT_COMPANIES }) {
        return yield* sql.withTransaction(Effect.gen(function* () {
          yield* exec(`SELECT pg_advisory_xact_lock(${SEED_LOCK})`)
          const present = yield* sql<{ present: boolean }>`SELECT EXISTS (SELECT 1 FROM companies) AS present`.pipe(Effect.orDie)
          if (present[0]?.present === true) return undefined
          return yield* fill(options)
        })).pipe(Effect.orDie)
      }
    )

    return { load, loadIfEmpty, counts }
  })
}) {}
