import { SqlClient } from "@effect/sql"
import { Array as Arr, Duration, Effect, Option, Redacted, Schema } from "effect"
import { Unauthorized } from "../../schema/Errors.ts"
import { ApiKeyId, WorkspaceId } from "../../schema/Ids.ts"
import { Principal } from "../../schema/Principal.ts"
import { Plan } from "../../schema/tools/Definition.ts"
import { sha256 } from "../audit/Chain.ts"
import { newId, newSecret } from "../Ids.ts"

export const KEY_PREFIX = "brein_sk_"
export const DEMO_WORKSPACE = "demo"
const KEY_TTL = Duration.seconds(30)
const KEY_CACHE_SIZE = 10_000

const Workspace = Schema.Struct({ id: WorkspaceId, name: Schema.String, plan: Plan })
export type Workspace = typeof Workspace.Type
const decodeWorkspaces = Schema.decodeUnknown(Schema.Array(Workspace))
const KeyRow = Schema.Struct({ keyId: ApiKeyId, workspaceId: WorkspaceId, workspaceName: Schema.String, plan: Plan })
const decodeKeys = Schema.decodeUnknown(Schema.Array(KeyRow))

export interface IssuedKey {
  readonly workspace: Workspace
  readonly key: Redacted.Redacted<string>
}

export class WorkspaceNotFound extends Schema.TaggedError<WorkspaceNotFound>()("WorkspaceNotFound", {
  name: Schema.String,
  message: Schema.String
}) {}

const unauthorized = new Unauthorized({ message: "missing, unknown or revoked API key" })

export class Workspaces extends Effect.Service<Workspaces>()("brein/workspace/Workspaces", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const findByName = (name: string) =>
      sql`SELECT id, name, plan FROM workspaces WHERE name = ${name}`.pipe(
        Effect.flatMap(decodeWorkspaces),
        Effect.map(Arr.head),
        Effect.orDie
      )

    const ensureWorkspace = (name: string, plan: Option.Option<Plan>) =>
      Effect.gen(function* () {
        const id = yield* newId("ws")
        const wanted = Option.getOrElse(plan, () => "free" as const)
        yield* sql`INSERT INTO workspaces (id, name, plan) VALUES (${id}, ${name}, ${wanted}) ON CONFLICT (name) DO NOTHING`
        if (Option.isSome(plan)) yield* sql`UPDATE workspaces SET plan = ${plan.value} WHERE name = ${name}`
        return yield* findByName(name).pipe(Effect.flatMap(Effect.orDieWith(() => `workspace ${name} vanished`)))
      }).pipe(Effect.orDie)

    /** Issues a new API key; the plain key exists only in the return value. */
    const issueKey = Effect.fn("Workspaces.issueKey")(function* (options: { readonly workspace: string; readonly plan: Option.Option<Plan> }) {
      const workspace = yield* ensureWorkspace(options.workspace, options.plan)
      const id = yield* newId("key")
      const key = yield* newSecret(KEY_PREFIX)
      yield* sql`INSERT INTO api_keys (id, workspace_id, prefix, key_hash) VALUES (${id}, ${workspace.id}, ${key.slice(0, 14)}, ${sha256(key)})`.pipe(
        Effect.orDie
      )
      return { workspace, key: Redacted.make(key) } satisfies IssuedKey
    })

    /** On first start (no workspace at all) creates the demo workspace and its key. */
    const ensureDemo = Effect.fn("Workspaces.ensureDemo")(function* () {
      const [row] = yield* sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM workspaces`.pipe(Effect.orDie)
      if (row !== undefined && row.n > 0) return Option.none<IssuedKey>()
      return Option.some(yield* issueKey({ workspace: DEMO_WORKSPACE, plan: Option.some("paid") }))
    })

    const lookup = (keyHash: string) =>
      sql`SELECT k.id AS key_id, w.id AS workspace_id, w.name AS workspace_name, w.plan
          FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id
          WHERE k.key_hash = ${keyHash} AND k.revoked_at IS NULL`.pipe(
        Effect.flatMap(decodeKeys),
        Effect.orDie,
        Effect.flatMap(Arr.head),
        Effect.mapError(() => unauthorized),
        Effect.map((row) => new Principal({ workspaceId: row.workspaceId, workspaceName: row.workspaceName, plan: row.plan, keyId: row.keyId }))
      )

    // A key lookup per request would cost a query per call: a known key is trusted for KEY_TTL
    // (revocation from another process takes effect within it). Unknown keys are never remembered.
    const known = new Map<string, { readonly principal: Principal; readonly until: number }>()
    const remember = (hash: string, principal: Principal, now: number) => {
      if (known.size >= KEY_CACHE_SIZE) known.delete(known.keys().next().value ?? "")
      known.set(hash, { principal, until: now + Duration.toMillis(KEY_TTL) })
    }

    const authenticate = (key: string) =>
      key.startsWith(KEY_PREFIX)
        ? Effect.clockWith((clock) => {
          const hash = sha256(key)
          const now = clock.unsafeCurrentTimeMillis()
          const hit = known.get(hash)
          return hit !== undefined && hit.until > now
            ? Effect.succeed(hit.principal)
            : Effect.tap(lookup(hash), (principal) => Effect.sync(() => remember(hash, principal, now)))
        })
        : Effect.fail(unauthorized)

    const revoke = Effect.fn("Workspaces.revoke")(function* (keyId: string) {
      yield* sql`UPDATE api_keys SET revoked_at = now() WHERE id = ${keyId}`.pipe(Effect.orDie)
      yield* Effect.sync(() => known.clear())
    })

    /** An in-process principal for a workspace, for programs that embed brein as a library. */
    const principalFor = Effect.fn("Workspaces.principalFor")(function* (name: string) {
      const workspace = yield* findByName(name)
      if (Option.isNone(workspace)) return yield* new WorkspaceNotFound({ name, message: `no workspace named "${name}"` })
      return new Principal({ workspaceId: workspace.value.id, workspaceName: workspace.value.name, plan: workspace.value.plan, keyId: null })
    })

    /** Creates the workspace if needed and answers its in-process principal. */
    const inProcess = Effect.fn("Workspaces.inProcess")(function* (name: string, plan: Plan = "free") {
      const workspace = yield* ensureWorkspace(name, Option.some(plan))
      return new Principal({ workspaceId: workspace.id, workspaceName: workspace.name, plan: workspace.plan, keyId: null })
    })

    return { issueKey, ensureDemo, authenticate, revoke, principalFor, inProcess, ensureWorkspace }
  })
}) {}
