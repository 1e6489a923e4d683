import { SqlClient, type Statement } from "@effect/sql"
import { Array as Arr, Cache, Cause, Duration, Effect, Exit, Option, Redacted, Schema } from "effect"
import { Unauthorized } from "../../schema/Errors.ts"
import { ApiKeyId, WorkspaceId } from "../../schema/Ids.ts"
import { shortened } from "../../schema/Length.ts"
import { Principal } from "../../schema/Principal.ts"
import { Plan } from "../../schema/tools/Definition.ts"
import { decodeWorkspaceName, type WorkspaceName } from "../../schema/WorkspaceName.ts"
import { newSecret, sha256 } from "../Crypto.ts"
import { newId } from "../Ids.ts"
import { Channel, Signals } from "../Signals.ts"

export const KEY_PREFIX = "brein_sk_"
export const DEMO_WORKSPACE = "demo"
/**
 * The plan a workspace is made on when none is asked for. The demo workspace is paid whoever makes it
 * first: the first start, or an operator command run before it or while it still loads its data.
 */
const planWhenMade = (name: string): Plan => name.trim() === DEMO_WORKSPACE ? "paid" : "free"
const KEY_TTL = Duration.seconds(30)
/** How long a well-formed key that matched no active key is answered 401 without a lookup. */
const UNKNOWN_KEY_TTL = Duration.seconds(5)
/** Keys are issued as the prefix and 24 random bytes in base64url. */
const KEY_SHAPE = /^brein_sk_[A-Za-z0-9_-]{32}$/
/** How much of a key `keys list` shows, and the most of one any message repeats. */
export const KEY_PREFIX_LENGTH = 14
/** Whether the text is a whole key (as `keys create` printed it) rather than its prefix. */
export const isWholeKey = (text: string) => KEY_SHAPE.test(text)
/** The text clipped to a prefix's length: a secret given by mistake is never repeated whole. */
const shownPrefix = (text: string) => shortened(text, KEY_PREFIX_LENGTH)
const KEY_CACHE_SIZE = 10_000

const Workspace = Schema.Struct({ id: WorkspaceId, name: Schema.String, plan: Plan })
export type Workspace = typeof Workspace.Type
const decodeWorkspaces = Schema.decodeUnknown(Schema.Array(Workspace))
const KeyRow = Schema.Struct({ keyId: ApiKeyId, workspaceId: WorkspaceId, workspaceName: Schema.String, plan: Plan })
const decodeKeys = Schema.decodeUnknown(Schema.Array(KeyRow))

export const WorkspaceSummary = Schema.Struct({
  name: Schema.String,
  plan: Plan,
  keys: Schema.Int,
  connections: Schema.Int,
  createdAt: Schema.DateFromSelf
})
export type WorkspaceSummary = typeof WorkspaceSummary.Type
const decodeSummaries = Schema.decodeUnknown(Schema.Array(WorkspaceSummary))

/** An API key as an operator sees it: never the secret, only the prefix it starts with. */
export const KeySummary = Schema.Struct({
  prefix: Schema.String,
  workspace: Schema.String,
  plan: Plan,
  createdAt: Schema.DateFromSelf,
  lastUsedAt: Schema.NullOr(Schema.DateFromSelf)
})
export type KeySummary = typeof KeySummary.Type
const decodeKeySummaries = Schema.decodeUnknown(Schema.Array(KeySummary))

export interface IssuedKey {
  readonly workspace: Workspace
  /** The workspace did not exist: it was made for this key. */
  readonly created: boolean
  /** The workspace existed on another plan, which the plan asked for replaced: the plan it was on. */
  readonly planWas: Option.Option<Plan>
  readonly key: Redacted.Redacted<string>
}

export class WorkspaceNotFound extends Schema.TaggedError<WorkspaceNotFound>()("WorkspaceNotFound", {
  name: Schema.String,
  message: Schema.String
}) {}

export class WorkspaceExists extends Schema.TaggedError<WorkspaceExists>()("WorkspaceExists", {
  name: Schema.String,
  message: Schema.String
}) {}

export class KeyNotFound extends Schema.TaggedError<KeyNotFound>()("KeyNotFound", {
  prefix: Schema.String,
  message: Schema.String
}) {}

const unauthorized = new Unauthorized({ message: "missing, unknown or revoked API key" })

export class Workspaces extends Effect.Service<Workspaces>()("brein/workspace/Workspaces", {
  scoped: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const signals = yield* Signals

    // names are stored trimmed (WorkspaceName): " acme " finds "acme"
    const findByName = Effect.fn("Workspaces.findByName")(function* (name: string) {
      const rows = yield* sql`SELECT id, name, plan FROM workspaces WHERE name = ${name.trim()}`.pipe(
        Effect.flatMap(decodeWorkspaces),
        Effect.orDie
      )
      return Arr.head(rows)
    })

    /**
     * The workspace by that name, made now (on `plan`, else free, paid for the demo workspace) if there was none (`created`). An
     * existing workspace is put on `plan` when one is given (`planWas`: the plan it left), and every
     * process forgets its keys at once, so that none answers the old plan; without one it keeps its plan.
     */
    const ensureWorkspaceCreated = Effect.fn("Workspaces.ensureWorkspaceCreated")(
      function* (name: WorkspaceName, plan: Option.Option<Plan>) {
        const id = yield* newId("ws")
        const wanted = Option.getOrElse(plan, () => planWhenMade(name))
        const made = yield* sql`INSERT INTO workspaces (id, name, plan) VALUES (${id}, ${name}, ${wanted})
          ON CONFLICT (name) DO NOTHING RETURNING id`
        const moved = made.length > 0 || Option.isNone(plan) ? [] : yield* sql<{ readonly was: Plan; readonly keyHash: string | null }>`
          WITH moved AS (
            UPDATE workspaces AS w SET plan = ${plan.value} FROM workspaces AS before
            WHERE before.id = w.id AND w.name = ${name} AND w.plan <> ${plan.value}
            RETURNING w.id, before.plan AS was
          )
          SELECT moved.was, k.key_hash FROM moved LEFT JOIN api_keys k ON k.workspace_id = moved.id AND k.revoked_at IS NULL`
        yield* Effect.forEach(
          moved.flatMap((row) => row.keyHash === null ? [] : [row.keyHash]),
          (hash) => forget(hash).pipe(Effect.zipRight(signals.publish(Channel.keys, hash)))
        )
        const workspace = yield* findByName(name).pipe(Effect.flatMap(Effect.orDieWith(() => `workspace ${name} vanished`)))
        return { workspace, created: made.length > 0, planWas: Option.map(Arr.head(moved), (row) => row.was) }
      },
      Effect.orDie
    )
    const ensureWorkspace = Effect.fn("Workspaces.ensureWorkspace")(function* (name: string, plan: Option.Option<Plan>) {
      return (yield* ensureWorkspaceCreated(yield* decodeWorkspaceName(name), plan)).workspace
    })

    /** Issues a new API key; the plain key exists only in the return value. */
    const issueKey = Effect.fn("Workspaces.issueKey")(
      function* (options: { readonly workspace: string; readonly plan: Option.Option<Plan> }) {
        const name = yield* decodeWorkspaceName(options.workspace)
        const { created, planWas, workspace } = yield* ensureWorkspaceCreated(name, options.plan)
        const id = yield* newId("key")
        const key = yield* newSecret(KEY_PREFIX)
        const hash = sha256(key)
        yield* sql`INSERT INTO api_keys (id, workspace_id, prefix, key_hash) VALUES (${id}, ${workspace.id}, ${
          key.slice(0, KEY_PREFIX_LENGTH)
        }, ${hash})`
          .pipe(
            Effect.orDie
          )
        // no process may go on answering this key as unknown
        yield* forget(hash).pipe(Effect.zipRight(signals.publish(Channel.keys, hash)))
        return { workspace, created, planWas, key: Redacted.make(key) } satisfies IssuedKey
      }
    )

    /**
     * On first start (no workspace at all) creates the demo workspace, in one statement: a process making
     * it at the same moment (another start, a `keys create`) makes it on the same plan, and only one of
     * them is told it made it.
     */
    const createDemo = Effect.fn("Workspaces.createDemo")(function* () {
      const id = yield* newId("ws")
      const rows = yield* sql`INSERT INTO workspaces (id, name, plan)
          SELECT ${id}, ${DEMO_WORKSPACE}, ${planWhenMade(DEMO_WORKSPACE)} WHERE NOT EXISTS (SELECT 1 FROM workspaces)
          ON CONFLICT (name) DO NOTHING RETURNING id, name, plan`.pipe(Effect.flatMap(decodeWorkspaces), Effect.orDie)
      return Arr.head(rows)
    })

    /** On first start (no workspace at all) creates the demo workspace and its key. */
    const ensureDemo = Effect.fn("Workspaces.ensureDemo")(function* () {
      if (Option.isNone(yield* createDemo())) return Option.none<IssuedKey>()
      return Option.some(yield* issueKey({ workspace: DEMO_WORKSPACE, plan: Option.none() }).pipe(Effect.orDie))
    })

    const lookup = Effect.fn("Workspaces.lookup")(function* (keyHash: string) {
      // A lookup is a use: it stamps last_used_at, so a key in use is stamped once per KEY_TTL at most.
      const rows = yield* sql`WITH k AS (
            UPDATE api_keys SET last_used_at = now() WHERE key_hash = ${keyHash} AND revoked_at IS NULL RETURNING id, workspace_id)
          SELECT k.id AS key_id, w.id AS workspace_id, w.name AS workspace_name, w.plan
          FROM k JOIN workspaces w ON w.id = k.workspace_id`.pipe(Effect.flatMap(decodeKeys), Effect.orDie)
      const row = Arr.head(rows)
      if (Option.isNone(row)) return yield* unauthorized
      return new Principal({
        workspaceId: row.value.workspaceId,
        workspaceName: row.value.workspaceName,
        plan: row.value.plan,
        keyId: row.value.keyId
      })
    })

    // A key lookup per request would cost a query per call: a known key is trusted until a signal says it
    // changed (every process hears a revocation or a new key at once) or, should signals be lost, for
    // KEY_TTL at most. An unknown key is remembered as unknown for UNKNOWN_KEY_TTL, so that repeating a bad
    // key costs no query; a failed lookup (the database, not the key) is not remembered at all. A lookup
    // stamps the key's last_used_at: no write per request, and no second cache to space the writes.
    const remembered = (exit: Exit.Exit<Principal, Unauthorized>) =>
      Exit.isSuccess(exit) ? KEY_TTL : Cause.isFailType(exit.cause) ? UNKNOWN_KEY_TTL : Duration.zero
    const keys = yield* Cache.makeWith({ capacity: KEY_CACHE_SIZE, lookup, timeToLive: remembered })
    const forget = (hash: string) => keys.invalidate(hash)
    yield* signals.on(Channel.keys, forget)
    // revocations sent while LISTEN was down were missed: start over once it is back
    yield* signals.onReopen(keys.invalidateAll)

    // Light: it runs on every request, inside the request's span, so it has none of its own (a span costs
    // more than a cached check); a lookup that reaches the database has its span (Workspaces.lookup).
    // A key not of the shape keys are issued in is refused without a lookup.
    const authenticate = Effect.fnUntraced(function* (key: string) {
      if (!KEY_SHAPE.test(key)) return yield* unauthorized
      const hash = sha256(key)
      // A zero time to live still answers within the same millisecond (or forever on a stopped clock): drop a defect at once.
      return yield* keys.get(hash).pipe(Effect.tapDefect(() => keys.invalidate(hash)))
    })

    const revokeWhere = Effect.fn("Workspaces.revokeWhere")(
      function* (condition: Statement.Fragment) {
        const rows = yield* sql<
          { readonly keyHash: string; readonly id: string; readonly workspaceId: string; readonly prefix: string }
        >`UPDATE api_keys SET revoked_at = now()
                                                              WHERE ${condition} AND revoked_at IS NULL RETURNING key_hash, id, workspace_id, prefix`
        yield* Effect.forEach(rows, (row) => forget(row.keyHash).pipe(Effect.zipRight(signals.publish(Channel.keys, row.keyHash))))
        return rows.map((row) => ({ id: row.id, workspaceId: row.workspaceId, prefix: row.prefix }))
      },
      sql.withTransaction,
      Effect.orDie
    )

    const revoke = Effect.fn("Workspaces.revoke")(function* (keyId: string) {
      yield* revokeWhere(sql`id = ${keyId}`)
    })

    /** Revokes the key that starts with `prefix` (as `keys list` shows it), in every process at once. */
    const revokeByPrefix = Effect.fn("Workspaces.revokeByPrefix")(function* (prefix: string) {
      const [row] = yield* sql<
        { readonly n: number }
      >`SELECT count(*)::int AS n FROM api_keys WHERE prefix = ${prefix} AND revoked_at IS NULL`.pipe(Effect.orDie)
      const n = row?.n ?? 0
      if (n !== 1) {
        const shown = shownPrefix(prefix)
        return yield* new KeyNotFound({
          prefix: shown,
          message: n > 1
            ? `${n} active keys start with "${shown}": revoke them from the database, or by id`
            : prefix.length > KEY_PREFIX_LENGTH
            // Only the first characters of a key are kept: more of them can be checked only as the whole key.
            ? `no active key has the prefix "${shown}": a prefix is the key's first ${KEY_PREFIX_LENGTH} characters, as \`brein keys list\` shows them ("${
              prefix.slice(0, KEY_PREFIX_LENGTH)
            }"); give that, or the whole key`
            : prefix.length < KEY_PREFIX_LENGTH
            // A shorter one is no prefix: it would name every key it starts, and "no key starts with it" would be untrue.
            ? `"${shown}" is no key's prefix: a prefix is the key's first ${KEY_PREFIX_LENGTH} characters, as \`brein keys list\` shows them; give all of them, or the whole key`
            : `no active key has the prefix "${shown}" (see \`brein keys list\`)`
        })
      }
      const [revoked] = yield* revokeWhere(sql`prefix = ${prefix}`)
      return revoked
    })

    /** Revokes the key itself (the whole secret, as `keys create` printed it), in every process at once. */
    const revokeByKey = Effect.fn("Workspaces.revokeByKey")(function* (key: Redacted.Redacted<string>) {
      const [revoked] = yield* revokeWhere(sql`key_hash = ${sha256(Redacted.value(key))}`)
      if (revoked === undefined) {
        const shown = shownPrefix(Redacted.value(key))
        return yield* new KeyNotFound({ prefix: shown, message: `no active key is the one given (it starts with "${shown}")` })
      }
      return revoked
    })

    const listKeys = Effect.fn("Workspaces.listKeys")(function* (workspace: Option.Option<string>) {
      if (Option.isSome(workspace) && Option.isNone(yield* findByName(workspace.value))) {
        return yield* new WorkspaceNotFound({ name: workspace.value, message: `no workspace named "${workspace.value}"` })
      }
      const filter = Option.match(workspace, { onNone: () => sql`true`, onSome: (name) => sql`w.name = ${name.trim()}` })
      return yield* sql`SELECT k.prefix, w.name AS workspace, w.plan, k.created_at, k.last_used_at
                        FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id
                        WHERE k.revoked_at IS NULL AND ${filter} ORDER BY w.name, k.created_at`.pipe(
        Effect.flatMap(decodeKeySummaries),
        Effect.orDie
      )
    })

    const list = Effect.fn("Workspaces.list")(function* () {
      return yield* sql`SELECT w.name, w.plan, w.created_at,
                          (SELECT count(*)::int FROM api_keys k WHERE k.workspace_id = w.id AND k.revoked_at IS NULL) AS keys,
                          (SELECT count(*)::int FROM connections c WHERE c.workspace_id = w.id) AS connections
                        FROM workspaces w ORDER BY w.name`.pipe(Effect.flatMap(decodeSummaries), Effect.orDie)
    })

    const create = Effect.fn("Workspaces.create")(function* (given: string, plan: Plan = planWhenMade(given)) {
      const name = yield* decodeWorkspaceName(given)
      const id = yield* newId("ws")
      const rows = yield* sql`INSERT INTO workspaces (id, name, plan) VALUES (${id}, ${name}, ${plan})
                              ON CONFLICT (name) DO NOTHING RETURNING id, name, plan`.pipe(Effect.flatMap(decodeWorkspaces), Effect.orDie)
      const created = Arr.head(rows)
      if (Option.isNone(created)) {
        return yield* new WorkspaceExists({ name, message: `a workspace named "${name}" already exists (see \`brein workspaces list\`)` })
      }
      return created.value
    })

    /** An in-process principal for a workspace, for programs that embed brein as a library. */
    const principalFor = Effect.fn("Workspaces.principalFor")(function* (name: string) {
      const workspace = yield* findByName(name)
      if (Option.isNone(workspace)) return yield* new WorkspaceNotFound({ name, message: `no workspace named "${name}"` })
      return new Principal({
        workspaceId: workspace.value.id,
        workspaceName: workspace.value.name,
        plan: workspace.value.plan,
        keyId: null
      })
    })

    /**
     * The workspace's in-process principal, the workspace made if needed (on `plan`, free if none). An
     * existing workspace keeps its plan unless `plan` is given.
     */
    const inProcess = Effect.fn("Workspaces.inProcess")(function* (name: string, plan?: Plan) {
      const workspace = yield* ensureWorkspace(name, Option.fromNullable(plan))
      return new Principal({ workspaceId: workspace.id, workspaceName: workspace.name, plan: workspace.plan, keyId: null })
    })

    return {
      issueKey,
      createDemo,
      ensureDemo,
      authenticate,
      revoke,
      revokeByPrefix,
      revokeByKey,
      listKeys,
      list,
      create,
      principalFor,
      inProcess,
      ensureWorkspace
    }
  }),
  dependencies: [Signals.Default]
}) {}
