import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { RecordNotFound } from "../../../schema/Errors.ts"

/** The supplier and buying-unit references a call filters by: supplier ids and RFCs, unit ids, unit claves (CLAVEUC). */
export interface Referenced {
  readonly suppliers?: ReadonlyArray<string>
  readonly supplierRfcs?: ReadonlyArray<string>
  readonly units?: ReadonlyArray<string>
  readonly unitClaves?: ReadonlyArray<string>
}

/** One optional filter as a list of what it names. */
export const listed = (value: string | undefined): ReadonlyArray<string> => (value === undefined ? [] : [value])

const Ids = Schema.Array(Schema.Struct({ key: Schema.String }))

const supplierGuidance = {
  hint: "Find the supplier's id with market_search_suppliers (by name or RFC)",
  next_actions: [{ tool: "market_search_suppliers", reason: "find the supplier by name or RFC" }]
}

const unitGuidance = {
  hint: "A buying unit's id (unit_id) and CLAVEUC (unit_clave) come in the answers of market_search_opportunities and market_search_awards",
  next_actions: [{ tool: "market_search_opportunities", reason: "find the buying unit through its procedures" }]
}

const UNIT_ID =
  "a unit id looks like uc_…, not a CLAVEUC (e.g. 019GYR047); market_search_awards with that CLAVEUC as unit answers its unit_id"

/** Refuses a filter on a supplier or buying unit the data set does not hold: RecordNotFound, not an empty answer. */
export class Unknown extends Effect.Service<Unknown>()("brein/catalog/mercado/Unknown", {
  effect: Effect.gen(function* () {
    const sql = (yield* SqlClient.SqlClient).withoutTransforms()
    const missing = (table: "market_suppliers" | "market_units", column: "id" | "rfc" | "clave", values: ReadonlyArray<string>) =>
      values.length === 0 ? Effect.succeed([]) : sql
        .unsafe(`SELECT ${column} AS key FROM ${table} WHERE ${column} = ANY($1::text[])`, [values])
        .pipe(
          Effect.flatMap(Schema.decodeUnknown(Ids)),
          Effect.map((rows) => {
            const found = new Set(rows.map((r) => r.key))
            return [...new Set(values)].filter((v) => !found.has(v))
          }),
          Effect.orDie
        )

    const refuse = Effect.fn("Unknown.refuse")(function* (referenced: Referenced) {
      const [suppliers, rfcs, units, claves] = yield* Effect.all([
        missing("market_suppliers", "id", referenced.suppliers ?? []),
        missing("market_suppliers", "rfc", referenced.supplierRfcs ?? []),
        missing("market_units", "id", referenced.units ?? []),
        missing("market_units", "clave", referenced.unitClaves ?? [])
      ])
      if (suppliers.length + rfcs.length > 0) return yield* RecordNotFound.of("supplier", [...suppliers, ...rfcs], supplierGuidance)
      if (units.length + claves.length > 0) {
        return yield* RecordNotFound.of("unit", [...units, ...claves], unitGuidance, units.length > 0 ? UNIT_ID : undefined)
      }
    })

    return { refuse }
  })
}) {}
