import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import {
  type BatchError,
  type CrmObject,
  type CrmObjectType,
  CrmProperties,
  type Filter,
  type SearchRequest,
  type SearchResponse,
  type UpsertInput,
  type UpsertResult
} from "../../../schema/crm/Hubspot.ts"

/** The properties each object type knows (HubSpot defaults plus the team's custom `tax_id` and `brein_id`). */
export const KNOWN_PROPERTIES: Record<CrmObjectType, ReadonlySet<string>> = {
  companies: new Set(["name", "domain", "tax_id", "country", "city", "industry", "brein_id", "hs_object_id"]),
  contacts: new Set(["firstname", "lastname", "email", "jobtitle", "company", "brein_id", "hs_object_id"])
}

/** Only a unique-value property can name the record an upsert writes. */
export const UNIQUE_PROPERTY = "brein_id"

// The `::text` keeps the property names as stored: the client's result-name transform would camel-case a jsonb's keys.
const Row = Schema.Struct({
  id: Schema.String,
  propertiesJson: Schema.parseJson(CrmProperties),
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf
})
const decodeRows = Schema.decodeUnknown(Schema.Array(Row))
const UpsertRow = Schema.Struct({ ...Row.fields, inserted: Schema.Boolean })
const decodeUpsertRows = Schema.decodeUnknown(Schema.Array(UpsertRow))
const Count = Schema.Array(Schema.Struct({ n: Schema.Int }))
const decodeCount = Schema.decodeUnknown(Count)

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

const withProperties = (properties: CrmProperties, id: string, wanted: ReadonlyArray<string> | undefined): CrmProperties => {
  const all: CrmProperties = { ...properties, hs_object_id: id }
  if (wanted === undefined || wanted.length === 0) return all
  return Object.fromEntries([...wanted, "hs_object_id"].map((name) => [name, all[name] ?? null]))
}

const toObject = (row: typeof Row.Type, wanted?: ReadonlyArray<string>): CrmObject => ({
  id: row.id,
  properties: withProperties(row.propertiesJson, row.id, wanted),
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
  archived: false
})

/** Why one upsert input is refused, as HubSpot words it; undefined when it is valid. */
export const inputError = (type: CrmObjectType, input: UpsertInput): BatchError | undefined => {
  const refuse = (category: string, message: string): BatchError => ({
    status: "error",
    category,
    message,
    context: { id: [input.id] }
  })
  if (input.idProperty !== UNIQUE_PROPERTY) {
    return refuse("VALIDATION_ERROR", `Property "${input.idProperty}" is not a unique-value property and cannot be an idProperty`)
  }
  const unknown = Object.keys(input.properties).filter((name) => !KNOWN_PROPERTIES[type].has(name))
  if (unknown.length > 0) return refuse("PROPERTY_DOESNT_EXIST", `Property values were not valid: ${unknown.join(", ")} does not exist`)
  const email = input.properties["email"]
  if (type === "contacts" && email !== undefined && email !== null && email !== "" && !EMAIL.test(email)) {
    return refuse("VALIDATION_ERROR", `Property values were not valid: INVALID_EMAIL "${email}"`)
  }
  return undefined
}

export class CrmSimulatorStore extends Effect.Service<CrmSimulatorStore>()("brein/simulators/crm/CrmSimulatorStore", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql`id::text AS id, properties::text AS properties_json, created_at, updated_at`

    const condition = (filter: Filter) => {
      const property = sql`lower(properties ->> ${filter.propertyName})`
      return filter.operator === "EQ"
        ? sql`${property} = ${(filter.value ?? "").toLowerCase()}`
        : sql`${property} IN ${sql.in((filter.values ?? []).map((v) => v.toLowerCase()))}`
    }

    const search = Effect.fn("CrmSimulatorStore.search")(
      function* (portal: string, type: CrmObjectType, request: SearchRequest, limit: number, offset: number) {
        const groups = request.filterGroups.filter((g) => g.filters.length > 0).map((g) => sql.and(g.filters.map(condition)))
        const where = groups.length === 0
          ? sql`portal_id = ${portal} AND object_type = ${type}`
          : sql`portal_id = ${portal} AND object_type = ${type} AND ${sql.or(groups)}`
        const [count, rows] = yield* Effect.all([
          sql`SELECT count(*)::int AS n FROM crm_sim_objects WHERE ${where}`.pipe(Effect.flatMap(decodeCount)),
          sql`SELECT ${columns} FROM crm_sim_objects WHERE ${where} ORDER BY crm_sim_objects.id LIMIT ${limit} OFFSET ${offset}`.pipe(
            Effect.flatMap(decodeRows)
          )
        ], { concurrency: 2 })
        const total = count[0]?.n ?? 0
        const next = offset + rows.length
        return {
          total,
          results: rows.map((row) => toObject(row, request.properties)),
          ...(next < total ? { paging: { next: { after: String(next) } } } : {})
        } satisfies SearchResponse
      },
      Effect.orDie
    )

    const get = Effect.fn("CrmSimulatorStore.get")(
      function* (portal: string, type: CrmObjectType, id: string, withAssociations: ReadonlyArray<string>) {
        if (!/^\d{1,18}$/.test(id)) return Option.none<CrmObject>()
        const rows = yield* sql`SELECT ${columns} FROM crm_sim_objects
          WHERE portal_id = ${portal} AND object_type = ${type} AND id = ${id}`.pipe(Effect.flatMap(decodeRows))
        const row = rows[0]
        if (row === undefined) return Option.none<CrmObject>()
        const object = toObject(row)
        if (withAssociations.length === 0) return Option.some(object)
        const links = yield* sql<{ toType: string; toId: string }>`
          SELECT to_type, to_id::text AS to_id FROM crm_sim_associations
          WHERE portal_id = ${portal} AND from_type = ${type} AND from_id = ${id} AND to_type IN ${sql.in(withAssociations)}
          ORDER BY to_id`
        const associations = Object.fromEntries(withAssociations.map((to) => [to, {
          results: links.filter((l) => l.toType === to).map((l) => ({
            id: l.toId,
            type: `${type.replace(/s$/, "")}_to_${to.replace(/ies$/, "y")}`
          }))
        }]))
        return Option.some({ ...object, associations })
      },
      Effect.orDie
    )

    const upsertOne = (portal: string, type: CrmObjectType, input: UpsertInput, now: Date) =>
      Effect.gen(function* () {
        const properties = JSON.stringify({ ...input.properties, [UNIQUE_PROPERTY]: input.id })
        const rows = yield* sql`
          INSERT INTO crm_sim_objects (portal_id, object_type, properties, created_at, updated_at)
          VALUES (${portal}, ${type}, jsonb_strip_nulls(${properties}::jsonb), ${now}, ${now})
          ON CONFLICT (portal_id, object_type, (properties ->> 'brein_id')) DO UPDATE
            SET properties = jsonb_strip_nulls(crm_sim_objects.properties || EXCLUDED.properties), updated_at = EXCLUDED.updated_at
          RETURNING ${columns}, (xmax = 0) AS inserted`.pipe(Effect.flatMap(decodeUpsertRows))
        const row = rows[0]
        if (row === undefined) return yield* Effect.dieMessage("an upsert returned no row")
        for (const association of input.associations ?? []) {
          yield* sql`
            INSERT INTO crm_sim_associations (portal_id, from_type, from_id, to_type, to_id, type_id)
            SELECT ${portal}, ${type}, ${row.id}, 'companies', id, ${association.types[0]?.associationTypeId ?? 1}
            FROM crm_sim_objects WHERE portal_id = ${portal} AND object_type = 'companies' AND id::text = ${association.to.id}
            ON CONFLICT DO NOTHING`
        }
        return { ...toObject(row), new: row.inserted } satisfies UpsertResult
      })

    /** Every valid input written (one transaction); the invalid ones answered as HubSpot's per-input errors. */
    const upsert = Effect.fn("CrmSimulatorStore.upsert")(
      function* (portal: string, type: CrmObjectType, inputs: ReadonlyArray<UpsertInput>, now: Date) {
        const errors = inputs.flatMap((input) => {
          const error = inputError(type, input)
          return error === undefined ? [] : [error]
        })
        const valid = inputs.filter((input) => inputError(type, input) === undefined)
        const results = yield* sql.withTransaction(Effect.forEach(valid, (input) => upsertOne(portal, type, input, now)))
        return { results, errors }
      },
      Effect.orDie
    )

    /** What each of `ids` (of `type`) is linked to among `toType`, by id; an id linked to nothing is absent. */
    const associated = Effect.fn("CrmSimulatorStore.associated")(
      function* (portal: string, type: CrmObjectType, ids: ReadonlyArray<string>, toType: CrmObjectType) {
        const numeric = ids.filter((id) => /^\d{1,18}$/.test(id))
        if (numeric.length === 0) return new Map<string, ReadonlyArray<{ readonly toId: string; readonly typeId: number }>>()
        const links = yield* sql<{ fromId: string; toId: string; typeId: number }>`
          SELECT from_id::text AS from_id, to_id::text AS to_id, type_id FROM crm_sim_associations
          WHERE portal_id = ${portal} AND from_type = ${type} AND to_type = ${toType} AND from_id = ANY(${numeric}::bigint[])
          ORDER BY from_id, to_id`
        const byFrom = new Map<string, Array<{ readonly toId: string; readonly typeId: number }>>()
        for (const link of links) byFrom.set(link.fromId, [...(byFrom.get(link.fromId) ?? []), { toId: link.toId, typeId: link.typeId }])
        return byFrom as ReadonlyMap<string, ReadonlyArray<{ readonly toId: string; readonly typeId: number }>>
      },
      Effect.orDie
    )

    /** How many objects of a type a portal holds (tests and the README's walkthrough). */
    const count = Effect.fn("CrmSimulatorStore.count")(
      function* (portal: string, type: CrmObjectType) {
        const rows = yield* sql`SELECT count(*)::int AS n FROM crm_sim_objects WHERE portal_id = ${portal} AND object_type = ${type}`.pipe(
          Effect.flatMap(decodeCount)
        )
        return rows[0]?.n ?? 0
      },
      Effect.orDie
    )

    return { search, get, upsert, associated, count }
  })
}) {}
