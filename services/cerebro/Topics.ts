import { SqlClient, type SqlError, type Statement } from "@effect/sql"
import { Array as Arr, Clock, Data, Effect, Either, Equivalence, Option, Schema } from "effect"
import { Area, type Topic, TopicId } from "../../schema/catalog/Cerebro.ts"
import { TopicConflict, TopicNotFound } from "../../schema/catalog/CerebroErrors.ts"
import { compilePattern } from "../../schema/catalog/TopicPattern.ts"
import type { WorkspaceId } from "../../schema/Ids.ts"
import { sqlState } from "../Database.ts"
import { newId } from "../Ids.ts"
import { checkCreate, checkUpdate } from "./WriteRules.ts"

class TitleTaken extends Data.TaggedError("TitleTaken")<{ readonly area: Area; readonly title: string }> {}

/** Who writes: the workspace, and the key (or in-process surface) the change is recorded under. */
export interface Author {
  readonly workspaceId: WorkspaceId
  readonly by: string
}

const Row = Schema.Struct({
  id: TopicId,
  area: Area,
  title: Schema.String,
  body: Schema.String,
  tags: Schema.Array(Schema.String),
  pattern: Schema.NullOr(Schema.String),
  version: Schema.Int,
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf,
  createdBy: Schema.String,
  updatedBy: Schema.String
})
type Row = typeof Row.Type
const decodeRows = Schema.decodeUnknown(Schema.Array(Row))
const VersionRow = Schema.Struct({ ...Row.fields, latest: Schema.Int })
const decodeVersionRows = Schema.decodeUnknown(Schema.Array(VersionRow))
const HitRow = Schema.Struct({ ...Row.fields, total: Schema.Int })
const decodeHits = Schema.decodeUnknown(Schema.Array(HitRow))

const COLUMNS = "id, area, title, body, tags, pattern, version, created_at, updated_at, created_by, updated_by"
const MAX_TERMS = 8

export const topicOf = (row: Row): Topic => ({
  id: row.id,
  area: row.area,
  title: row.title,
  body: row.body,
  tags: row.tags,
  pattern: row.pattern,
  pattern_variables: row.pattern === null ? [] : Either.match(compilePattern(row.pattern), {
    onLeft: () => [],
    onRight: (compiled) => compiled.variables
  }),
  version: row.version,
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
  created_by: row.createdBy,
  updated_by: row.updatedBy
})

export interface RetrieveQuery {
  readonly query?: string | undefined
  readonly area?: Area | undefined
  readonly tags?: ReadonlyArray<string> | undefined
  readonly limit: number
}

const duplicate = (id: string, version: number, title: string) =>
  new TopicConflict({
    reason: "duplicate_title",
    topicId: id,
    currentVersion: version,
    message: `this area already has a topic titled like "${title}" (${id}): nothing was written`,
    hint: `Add to the existing topic with context_update (id ${id}, version ${version}) instead of creating another`,
    next_actions: [
      { tool: "context_get", reason: "read the existing topic before changing it", input: { id } },
      { tool: "context_update", reason: "change the existing topic", input: { id, version } }
    ]
  })

const notFound = (id: string) =>
  new TopicNotFound({
    topicId: id,
    message: `no topic ${id} in this workspace`,
    next_actions: [{ tool: "context_retrieve", reason: "search this workspace's topics" }]
  })

/** Cerebro's topics: each workspace's knowledge, written under the write rules with every version kept. */
export class Topics extends Effect.Service<Topics>()("brein/cerebro/Topics", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const tagArray = (tags: ReadonlyArray<string>) => sql`ARRAY(SELECT jsonb_array_elements_text(${JSON.stringify(tags)}::jsonb))`
    const folded = (text: string | Statement.Fragment) => sql`lower(unaccent(regexp_replace(btrim(${text}), '[[:space:]]+', ' ', 'g')))`

    /** A race lost to another writer of the same title: its unique violation, told once the write rolled back. */
    const titleTaken = (area: Area, title: string) => (error: SqlError.SqlError) =>
      sqlState(error) === "23505" ? Effect.fail(new TitleTaken({ area, title })) : Effect.die(error)

    const taken = Effect.fn("Topics.taken")(function* (workspaceId: WorkspaceId, lost: TitleTaken) {
      const found = yield* sameTitle(workspaceId, lost.area, lost.title, null)
      if (Option.isNone(found)) return yield* Effect.dieMessage("a unique title was violated by a topic that cannot be found")
      return yield* duplicate(found.value.id, found.value.version, lost.title)
    })

    const sameTitle = Effect.fn("Topics.sameTitle")(
      function* (workspaceId: WorkspaceId, area: Area, title: string, except: string | null) {
        const rows = yield* sql`SELECT ${sql.literal(COLUMNS)} FROM topics
          WHERE workspace_id = ${workspaceId} AND area = ${area} AND title_key = ${folded(title)}
          ${except === null ? sql`` : sql`AND id <> ${except}`}`.pipe(Effect.flatMap(decodeRows), Effect.orDie)
        return Arr.head(rows)
      }
    )

    const record = Effect.fn("Topics.record")(function* (workspaceId: WorkspaceId, row: Row) {
      yield* sql`INSERT INTO topic_versions (topic_id, version, workspace_id, area, title, body, tags, pattern, recorded_at, recorded_by)
        VALUES (${row.id}, ${row.version}, ${workspaceId}, ${row.area}, ${row.title}, ${row.body}, ${tagArray(row.tags)},
                ${row.pattern}, ${row.updatedAt}, ${row.updatedBy})`.pipe(Effect.orDie)
    })

    const searchText = (title: string, body: string, tags: ReadonlyArray<string>, pattern: string | null) =>
      folded([title, tags.join(" "), body, pattern ?? ""].join(" "))

    const create = Effect.fn("Topics.create")(function* (author: Author, raw: unknown) {
      const input = yield* checkCreate(raw)
      const now = new Date(yield* Clock.currentTimeMillis)
      const id = yield* newId("tp")
      const pattern = input.pattern ?? null
      return yield* sql.withTransaction(Effect.gen(function* () {
        const existing = yield* sameTitle(author.workspaceId, input.area, input.title, null)
        if (Option.isSome(existing)) return yield* duplicate(existing.value.id, existing.value.version, input.title)
        const rows = yield* sql`INSERT INTO topics (id, workspace_id, area, title, title_key, body, tags, pattern, search_text, version,
            created_at, updated_at, created_by, updated_by)
          VALUES (${id}, ${author.workspaceId}, ${input.area}, ${input.title}, ${folded(input.title)}, ${input.body},
            ${tagArray(input.tags)}, ${pattern}, ${searchText(input.title, input.body, input.tags, pattern)}, 1,
            ${now}, ${now}, ${author.by}, ${author.by})
          RETURNING ${sql.literal(COLUMNS)}`.pipe(
          Effect.catchTag("SqlError", titleTaken(input.area, input.title)),
          Effect.flatMap((rows) => Effect.orDie(decodeRows(rows)))
        )
        const row = yield* Effect.orDie(Arr.head(rows))
        yield* record(author.workspaceId, row)
        return topicOf(row)
      })).pipe(
        Effect.catchTag("SqlError", Effect.die),
        Effect.catchTag("TitleTaken", (lost) => taken(author.workspaceId, lost))
      )
    })

    const update = Effect.fn("Topics.update")(function* (author: Author, raw: unknown) {
      const change = yield* checkUpdate(raw)
      const now = new Date(yield* Clock.currentTimeMillis)
      return yield* sql.withTransaction(Effect.gen(function* () {
        const current = yield* sql`SELECT ${sql.literal(COLUMNS)} FROM topics
          WHERE id = ${change.id} AND workspace_id = ${author.workspaceId} FOR UPDATE`.pipe(
          Effect.flatMap(decodeRows),
          Effect.orDie,
          Effect.map(Arr.head)
        )
        if (Option.isNone(current)) return yield* notFound(change.id)
        const before = current.value
        if (before.version !== change.version) {
          const ahead = change.version > before.version
          return yield* new TopicConflict({
            reason: ahead ? "unknown_version" : "stale_version",
            topicId: before.id,
            currentVersion: before.version,
            message: ahead
              ? `${before.id} is at version ${before.version}: it never had version ${change.version}, and nothing was written`
              : `${before.id} is at version ${before.version}, not ${change.version}: it changed since it was read, and nothing was written`,
            hint: "Read the topic again with context_get, apply the change to what it says now, and update with its version",
            next_actions: [{ tool: "context_get", reason: "read the current version", input: { id: before.id } }]
          })
        }
        const area = change.area ?? before.area
        const title = change.title ?? before.title
        const body = change.body ?? before.body
        const tags = change.tags ?? before.tags
        const pattern = change.pattern === undefined ? before.pattern : change.pattern
        const same = area === before.area && title === before.title && body === before.body && pattern === before.pattern &&
          Arr.getEquivalence(Equivalence.string)(tags, before.tags)
        if (same) return { topic: topicOf(before), previous: before.version, changed: false }
        if (area !== before.area || title !== before.title) {
          const existing = yield* sameTitle(author.workspaceId, area, title, before.id)
          if (Option.isSome(existing)) return yield* duplicate(existing.value.id, existing.value.version, title)
        }
        const rows = yield* sql`UPDATE topics SET area = ${area}, title = ${title}, title_key = ${folded(title)}, body = ${body},
            tags = ${tagArray(tags)}, pattern = ${pattern}, search_text = ${searchText(title, body, tags, pattern)},
            version = version + 1, updated_at = ${now}, updated_by = ${author.by}
          WHERE id = ${before.id} AND version = ${before.version}
          RETURNING ${sql.literal(COLUMNS)}`.pipe(
          Effect.catchTag("SqlError", titleTaken(area, title)),
          Effect.flatMap((rows) => Effect.orDie(decodeRows(rows)))
        )
        const row = yield* Effect.orDie(Arr.head(rows))
        yield* record(author.workspaceId, row)
        return { topic: topicOf(row), previous: before.version, changed: true }
      })).pipe(
        Effect.catchTag("SqlError", Effect.die),
        Effect.catchTag("TitleTaken", (lost) => taken(author.workspaceId, lost))
      )
    })

    const get = Effect.fn("Topics.get")(function* (workspaceId: WorkspaceId, id: TopicId, version: number | undefined) {
      const rows = yield* (version === undefined
        ? sql`SELECT ${sql.literal(COLUMNS)}, version AS latest FROM topics WHERE id = ${id} AND workspace_id = ${workspaceId}`
        : sql`SELECT t.id, v.area, v.title, v.body, v.tags, v.pattern, v.version, t.created_at, v.recorded_at AS updated_at,
              t.created_by, v.recorded_by AS updated_by, t.version AS latest
            FROM topic_versions v JOIN topics t ON t.id = v.topic_id
            WHERE v.topic_id = ${id} AND v.version = ${version} AND t.workspace_id = ${workspaceId}`).pipe(
          Effect.flatMap(decodeVersionRows),
          Effect.orDie
        )
      const row = Arr.head(rows)
      if (Option.isSome(row)) return { topic: topicOf(row.value), latest: row.value.latest }
      if (version === undefined) return yield* notFound(id)
      const latest = yield* sql`SELECT version FROM topics WHERE id = ${id} AND workspace_id = ${workspaceId}`.pipe(Effect.orDie)
      const newest = latest[0]?.["version"]
      if (typeof newest !== "number") return yield* notFound(id)
      return yield* new TopicNotFound({
        topicId: id,
        message: `${id} has no version ${version}: its versions are 1 to ${newest}`,
        next_actions: [{ tool: "context_get", reason: "read the current version", input: { id } }]
      })
    })

    const retrieve = Effect.fn("Topics.retrieve")(function* (workspaceId: WorkspaceId, query: RetrieveQuery) {
      const text = query.query?.trim() ?? ""
      const terms = text.split(/\s+/).filter((t) => t !== "").slice(0, MAX_TERMS)
      const q = folded(text)
      const conditions = [
        sql`workspace_id = ${workspaceId}`,
        ...(query.area === undefined ? [] : [sql`area = ${query.area}`]),
        ...(query.tags === undefined || query.tags.length === 0 ? [] : [sql`tags @> ${tagArray(query.tags)}`]),
        ...(terms.length === 0 ? [] : [
          sql.or([
            sql.and(terms.map((term) => sql`strpos(search_text, ${folded(term)}) > 0`)),
            sql`${q} <% search_text`
          ])
        ])
      ]
      const ranked = terms.length === 0 ? sql`` : sql`(CASE WHEN strpos(title_key, ${q}) > 0 THEN 1 ELSE 0 END)
          + word_similarity(${q}, title_key) + word_similarity(${q}, search_text) DESC,`
      const rows = yield* sql`SELECT ${sql.literal(COLUMNS)}, (count(*) OVER ())::int AS total FROM topics
        WHERE ${sql.and(conditions)}
        ORDER BY ${ranked} updated_at DESC, id LIMIT ${query.limit}`.pipe(Effect.flatMap(decodeHits), Effect.orDie)
      return {
        total: rows[0]?.total ?? 0,
        terms,
        topics: rows.map(topicOf)
      }
    })

    return { create, update, get, retrieve }
  })
}) {}
