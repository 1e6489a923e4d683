import { createHash } from "node:crypto"
import { Effect, Schema } from "effect"
import { Persist } from "../pipeline/Persist.ts"

export interface Column {
  readonly name: string
  readonly type: "text" | "int" | "bigint" | "date" | "boolean"
}

/** A cached resource: its table, the columns a sync writes, and how rows are named across syncs. */
export interface CachedResource<Row> {
  readonly resource: string
  readonly table: string
  readonly columns: ReadonlyArray<Column>
  readonly naturalKey: (row: Row) => string
  readonly values: (row: Row) => ReadonlyArray<string | number | boolean | null>
}

export const contentHash = (values: ReadonlyArray<unknown>) => createHash("md5").update(JSON.stringify(values)).digest("hex")

const Counts = Schema.Struct({ nuevos: Schema.Number, cambiados: Schema.Number })
const decodeCounts = Schema.decodeUnknown(Schema.Array(Counts))
const CHUNK = 10_000

/**
 * Upserts a sync's rows into the cache: new rows are inserted, rows whose content changed are
 * updated with version + 1 and their previous state goes to cache_history, unchanged rows are
 * left alone. Runs inside the job's transaction (Persist), so a failed sync leaves nothing.
 */
export const upsertWithHistory = <Row>(resource: CachedResource<Row>, rows: ReadonlyArray<Row>, jobId: string) =>
  Effect.gen(function* () {
    const { sql, connectionId } = yield* Persist
    const all: ReadonlyArray<Column> = [...resource.columns, { name: "content_hash", type: "text" }]
    const names = all.map((c) => c.name)
    const list = names.join(", ")
    const unnest = all.map((c, i) => `$${i + 3}::${c.type}[]`).join(", ")
    const updates = names.map((n) => `${n} = EXCLUDED.${n}`).join(", ")
    const statement = `
      WITH incoming AS (
        SELECT * FROM unnest($2::text[], ${unnest}) AS t(natural_key, ${list})
      ), previous AS (
        SELECT d.natural_key, d.version, d.synced_at, to_jsonb(d) - 'id' - 'connection_id' - 'content_hash' - 'natural_key' AS snapshot
        FROM ${resource.table} d JOIN incoming i ON d.connection_id = $1 AND d.natural_key = i.natural_key
        WHERE d.content_hash <> i.content_hash
      ), history AS (
        INSERT INTO cache_history (connection_id, resource, natural_key, version, snapshot, valid_from, valid_to, job_id)
        SELECT $1, '${resource.resource}', natural_key, version, snapshot, synced_at, now(), '${jobId.replace(/'/g, "")}' FROM previous
      ), written AS (
        INSERT INTO ${resource.table} (connection_id, natural_key, ${list}, synced_at)
        SELECT $1, natural_key, ${list}, now() FROM incoming
        ON CONFLICT (connection_id, natural_key) DO UPDATE SET ${updates}, version = ${resource.table}.version + 1, synced_at = now()
        WHERE ${resource.table}.content_hash <> EXCLUDED.content_hash
        RETURNING (xmax = 0) AS inserted
      )
      SELECT count(*) FILTER (WHERE inserted)::int AS nuevos, count(*) FILTER (WHERE NOT inserted)::int AS cambiados FROM written`
    let nuevos = 0
    let cambiados = 0
    for (let start = 0; start < rows.length; start += CHUNK) {
      const chunk = rows.slice(start, start + CHUNK)
      const columns = all.map(() => [] as Array<string | number | boolean | null>)
      const keys: Array<string> = []
      for (const row of chunk) {
        const values = resource.values(row)
        keys.push(resource.naturalKey(row))
        values.forEach((value, i) => columns[i]!.push(value))
        columns[values.length]!.push(contentHash(values))
      }
      const [counts] = yield* sql.unsafe(statement, [connectionId, keys, ...columns]).pipe(Effect.flatMap(decodeCounts), Effect.orDie)
      nuevos += counts?.nuevos ?? 0
      cambiados += counts?.cambiados ?? 0
    }
    return { nuevos, cambiados, sinCambios: rows.length - nuevos - cambiados }
  })
