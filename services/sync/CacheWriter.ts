import { Effect, Schema } from "effect"
import { createHash } from "node:crypto"
import { Persist } from "../tools/Persist.ts"

export interface Column {
  readonly name: string
  readonly type: "text" | "int" | "bigint" | "date" | "boolean"
}

type Value = string | number | boolean | null

/** A cached resource: its table, the columns a sync writes, and how rows are named across syncs. */
export interface CachedResource<Row> {
  readonly resource: string
  readonly table: string
  readonly columns: ReadonlyArray<Column>
  readonly naturalKey: (row: Row) => string
  readonly values: (row: Row) => ReadonlyArray<Value>
}

export const contentHash = (values: ReadonlyArray<unknown>) => createHash("md5").update(JSON.stringify(values)).digest("hex")

const Existing = Schema.Struct({ naturalKey: Schema.String, contentHash: Schema.String })
const decodeExisting = Schema.decodeUnknown(Schema.Array(Existing))
const CHUNK = 10_000

interface Prepared {
  readonly key: string
  readonly values: ReadonlyArray<Value>
  readonly hash: string
}

/** Column-wise arrays for `unnest`: one round trip carries thousands of rows. */
const columnsOf = (rows: ReadonlyArray<Prepared>, width: number) => {
  const keys: Array<string> = []
  const columns = Array.from({ length: width + 1 }, () => [] as Array<Value>)
  for (const row of rows) {
    keys.push(row.key)
    row.values.forEach((value, i) => columns[i]!.push(value))
    columns[width]!.push(row.hash)
  }
  return [keys, ...columns]
}

const chunks = <A>(all: ReadonlyArray<A>) =>
  Array.from({ length: Math.ceil(all.length / CHUNK) }, (_, i) => all.slice(i * CHUNK, (i + 1) * CHUNK))

/**
 * Writes a sync's rows into the cache: new rows are inserted, rows whose content changed are
 * updated with version + 1 and their previous state goes to cache_history, unchanged rows are left
 * alone. Runs inside the job's transaction (Persist), so a failed sync leaves nothing behind.
 */
export const upsertWithHistory = <Row>(resource: CachedResource<Row>, rows: ReadonlyArray<Row>, jobId: string) =>
  write(
    resource,
    rows.map((row): Prepared => {
      const values = resource.values(row)
      return { key: resource.naturalKey(row), values, hash: contentHash(values) }
    }),
    jobId
  )

const write = Effect.fn("CacheWriter.upsertWithHistory")(
  function* (resource: Pick<CachedResource<unknown>, "resource" | "table" | "columns">, prepared: ReadonlyArray<Prepared>, jobId: string) {
    const { sql, connectionId } = yield* Persist
    const all: ReadonlyArray<Column> = [...resource.columns, { name: "content_hash", type: "text" }]
    const names = all.map((c) => c.name)
    const unnest = `unnest($2::text[], ${all.map((c, i) => `$${i + 3}::${c.type}[]`).join(", ")}) AS u(natural_key, ${names.join(", ")})`
    const run = (statement: string, params: ReadonlyArray<unknown>) => Effect.orDie(sql.unsafe(statement, params))

    const known = new Map<string, string>()
    for (const chunk of chunks(prepared)) {
      const found = yield* run(
        `SELECT natural_key, content_hash FROM ${resource.table} WHERE connection_id = $1 AND natural_key = ANY($2::text[])`,
        [connectionId, chunk.map((p) => p.key)]
      ).pipe(Effect.flatMap(decodeExisting), Effect.orDie)
      for (const row of found) known.set(row.naturalKey, row.contentHash)
    }
    const fresh = prepared.filter((p) => !known.has(p.key))
    const changed = prepared.filter((p) => known.has(p.key) && known.get(p.key) !== p.hash)

    for (const chunk of chunks(fresh)) {
      yield* run(
        `INSERT INTO ${resource.table} (connection_id, natural_key, ${names.join(", ")}, synced_at) SELECT $1, u.*, now() FROM ${unnest}`,
        [connectionId, ...columnsOf(chunk, resource.columns.length)]
      )
    }
    for (const chunk of chunks(changed)) {
      yield* run(
        `INSERT INTO cache_history (connection_id, resource, natural_key, version, snapshot, valid_from, valid_to, job_id)
         SELECT d.connection_id, $3, d.natural_key, d.version,
                to_jsonb(d) - 'id' - 'connection_id' - 'content_hash' - 'natural_key' - 'version' - 'synced_at', d.synced_at, now(), $4
         FROM ${resource.table} d WHERE d.connection_id = $1 AND d.natural_key = ANY($2::text[])`,
        [connectionId, chunk.map((p) => p.key), resource.resource, jobId]
      )
      yield* run(
        `UPDATE ${resource.table} d SET ${names.map((n) => `${n} = u.${n}`).join(", ")}, version = d.version + 1, synced_at = now()
         FROM ${unnest} WHERE d.connection_id = $1 AND d.natural_key = u.natural_key`,
        [connectionId, ...columnsOf(chunk, resource.columns.length)]
      )
    }
    return { nuevos: fresh.length, cambiados: changed.length, sinCambios: prepared.length - fresh.length - changed.length }
  }
)
