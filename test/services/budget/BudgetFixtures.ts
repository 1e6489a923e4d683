import { SqlClient } from "@effect/sql"
import { ConfigProvider, Effect, Layer, Schema } from "effect"
import { Quote } from "../../../schema/budget/Budget.ts"
import { RecordNotFound } from "../../../schema/Errors.ts"
import type { WorkspaceId } from "../../../schema/Ids.ts"
import type { Principal } from "../../../schema/Principal.ts"
import type { Hints } from "../../../schema/tools/Definition.ts"
import { Credits } from "../../../services/budget/Credits.ts"
import { Executor } from "../../../services/pipeline/Executor.ts"
import { Registry } from "../../../services/tools/Registry.ts"
import { catalog } from "../../../services/tools/Source.ts"
import { action, type ActionContext, creditsAction, type QuoteDraftItem } from "../../../services/tools/Tool.ts"
import { TestDatabase } from "../../support/TestDatabase.ts"
import { callContext, servicesWith } from "../../support/TestLayers.ts"

export const READS_PER_HOUR_FREE = 3
export const READS_PER_HOUR_PAID = 5
export const UNIT_PRICE = 4

const reveals: Hints = { readOnly: false, destructive: false, idempotent: false, openWorld: false }
const looks: Hints = { readOnly: true, destructive: false, idempotent: true, openWorld: false }

/** The directory the reveal tools read: every `per_…` id is a person with an e-mail; any other id is nobody. */
const emailOf = (id: string): string | undefined => (id.startsWith("per_") ? `${id.slice(4)}@example.cl` : undefined)

/** What a workspace already revealed: the reveal tools write here, in the call's transaction. */
const createRevealed = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) =>
    sql`CREATE TABLE IF NOT EXISTS test_revealed (
      workspace_id text NOT NULL, person_id text NOT NULL, request_id text NOT NULL, PRIMARY KEY (workspace_id, person_id))`
)

export const ownedBy = (workspaceId: WorkspaceId) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ personId: string }>`SELECT person_id FROM test_revealed WHERE workspace_id = ${workspaceId} ORDER BY person_id`
  ).pipe(Effect.map((rows) => rows.map((r) => r.personId)))

/** Marks people as revealed before a test quotes them: a reveal of an earlier month. */
export const alreadyOwn = (workspaceId: WorkspaceId, ids: ReadonlyArray<string>) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      Effect.forEach(ids, (id) =>
        sql`INSERT INTO test_revealed (workspace_id, person_id, request_id) VALUES (${workspaceId}, ${id}, 'earlier')`, {
        discard: true
      })
  )

const classify = (ids: ReadonlyArray<string>, ctx: ActionContext) =>
  Effect.gen(function* () {
    const owned = new Set(yield* ownedBy(ctx.principal.workspaceId))
    return ids.map((id): QuoteDraftItem => ({
      id,
      label: emailOf(id) === undefined ? id : `contact of ${id}`,
      status: emailOf(id) === undefined ? "not_found" : owned.has(id) ? "already_owned" : "chargeable"
    }))
  }).pipe(Effect.orDie)

export const Revealed = Schema.Struct({
  revealed: Schema.Array(Schema.Struct({ id: Schema.String, email: Schema.String })),
  not_found: Schema.Array(Schema.String),
  already_owned: Schema.Array(Schema.String)
})

const reveal = (ids: ReadonlyArray<string>, ctx: ActionContext) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const items = yield* classify(ids, ctx)
    const revealed: Array<{ id: string; email: string }> = []
    for (const item of items) {
      const email = emailOf(item.id)
      if (item.status !== "chargeable" || email === undefined) continue
      yield* sql`INSERT INTO test_revealed (workspace_id, person_id, request_id)
        VALUES (${ctx.principal.workspaceId}, ${item.id}, ${ctx.requestId})`
      revealed.push({ id: item.id, email })
    }
    return {
      revealed,
      not_found: items.filter((i) => i.status === "not_found").map((i) => i.id),
      already_owned: items.filter((i) => i.status === "already_owned").map((i) => i.id)
    }
  }).pipe(Effect.orDie)

const revealTool = <const Id extends string>(id: Id) =>
  creditsAction({
    id,
    family: "testing",
    label: "Reveal contacts",
    description: "Reveals the e-mail of each person asked for; people already revealed and unknown ids cost nothing.",
    plan: "free",
    hints: reveals,
    cost: { kind: "credits", unit: "contact", unitPrice: UNIT_PRICE },
    level: 2,
    stages: [],
    input: Schema.Struct({ ids: Schema.Array(Schema.String).pipe(Schema.minItems(1)) }),
    output: Revealed,
    quoteItems: (input, ctx) => classify(input.ids, ctx),
    delivered: (answer) => answer.revealed.length,
    handler: (input, ctx) => reveal(input.ids, ctx)
  })

export const testReveal = revealTool("test_reveal")
/** The same reveal under another id: a quote of one tool is no quote of the other. */
export const testRevealAgain = revealTool("test_reveal_again")

export const testLookup = action({
  id: "test_lookup",
  family: "testing",
  label: "Look up",
  description: "Answers a fixed record; each call is one read of the workspace's hour.",
  plan: "free",
  hints: looks,
  cost: { kind: "read" },
  level: 0,
  stages: [],
  input: Schema.Struct({}),
  output: Schema.Struct({ found: Schema.Boolean }),
  handler: () => Effect.succeed({ found: true })
})

/** A read of one record: any id but a `per_…` one is nobody, and the call answers RecordNotFound. */
export const testLookupPerson = action({
  id: "test_lookup_person",
  family: "testing",
  label: "Look up a person",
  description: "Answers whether the person is known; an unknown id is RecordNotFound. Each call takes one read of the hour.",
  plan: "free",
  hints: looks,
  cost: { kind: "read" },
  level: 0,
  stages: [],
  input: Schema.Struct({ id: Schema.String }),
  output: Schema.Struct({ email: Schema.String }),
  handler: (input) => {
    const email = emailOf(input.id)
    return email === undefined ? Effect.fail(RecordNotFound.of("person", [input.id])) : Effect.succeed({ email })
  }
})

/** A read that writes in its transaction (a `writes` call) and then finds nobody: its write must not stay. */
export const testNoteVisit = action({
  id: "test_note_visit",
  family: "testing",
  label: "Note a visit",
  description: "Records that the person was looked at, then answers their e-mail; an unknown id is RecordNotFound.",
  plan: "free",
  hints: reveals,
  cost: { kind: "read" },
  level: 0,
  stages: [],
  input: Schema.Struct({ id: Schema.String }),
  output: Schema.Struct({ email: Schema.String }),
  handler: (input, ctx) =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* sql`INSERT INTO test_revealed (workspace_id, person_id, request_id)
        VALUES (${ctx.principal.workspaceId}, ${input.id}, ${ctx.requestId})`.pipe(Effect.orDie)
      const email = emailOf(input.id)
      return email === undefined ? yield* RecordNotFound.of("person", [input.id]) : { email }
    })
})

const BudgetRegistry = Registry.layer([
  catalog({ family: "testing", tools: [testReveal, testRevealAgain, testLookup, testLookupPerson, testNoteVisit] })
])

/** The ceilings small enough to reach in a test; anything not named here comes from the environment. */
const Settings = Layer.setConfigProvider(
  ConfigProvider.fromMap(
    new Map([
      ["BREIN_READS_PER_HOUR_FREE", String(READS_PER_HOUR_FREE)],
      ["BREIN_READS_PER_HOUR_PAID", String(READS_PER_HOUR_PAID)]
    ])
  ).pipe(ConfigProvider.orElse(() => ConfigProvider.fromEnv()))
)

/** The executor over the test tools, the credits service beside it, a migrated database with the reveal table. */
export const BudgetServices = Layer.mergeAll(servicesWith(BudgetRegistry), Credits.Default, Layer.effectDiscard(createRevealed)).pipe(
  Layer.provideMerge(TestDatabase),
  Layer.provide(Settings)
)

const LedgerRow = Schema.Struct({
  kind: Schema.String,
  delta: Schema.Int,
  balanceAfter: Schema.Int,
  reason: Schema.String,
  toolId: Schema.NullOr(Schema.String),
  quoteId: Schema.NullOr(Schema.String)
})

/** A workspace's credits ledger, oldest first. */
export const ledgerOf = (workspaceId: WorkspaceId) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql`SELECT kind, delta, balance_after, reason, tool_id, quote_id FROM credit_ledger WHERE workspace_id = ${workspaceId} ORDER BY id`
  ).pipe(Effect.flatMap(Schema.decodeUnknown(Schema.Array(LedgerRow))), Effect.orDie)

/** The balance as the database holds it (null before the account opens). */
export const balanceOf = (workspaceId: WorkspaceId) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ balance: number }>`SELECT balance FROM credit_accounts WHERE workspace_id = ${workspaceId}`
  ).pipe(Effect.map((rows) => rows[0]?.balance ?? null), Effect.orDie)

/** The error `effect` fails with, when it is the one expected; dies naming what happened instead. */
export const failsWith = <A, E extends { readonly _tag: string }, R, const T extends E["_tag"]>(
  effect: Effect.Effect<A, E, R>,
  tag: T
): Effect.Effect<Extract<E, { readonly _tag: T }>, never, R> =>
  Effect.matchEffect(effect, {
    onSuccess: (value) => Effect.dieMessage(`expected ${tag}, the call answered ${JSON.stringify(value)}`),
    onFailure: (error) =>
      error._tag === tag
        ? Effect.succeed(error as Extract<E, { readonly _tag: T }>)
        : Effect.dieMessage(`expected ${tag}, the call failed with ${JSON.stringify(error)}`)
  })

/** Calls a reveal tool through the executor, as the HTTP API would. */
export const callReveal = (principal: Principal, input: Record<string, unknown>, tool: string = testReveal.spec.id) =>
  Effect.flatMap(Executor, (executor) => executor.call(tool, input, callContext(principal, { surface: "http" })))

/** Asks for a quote of these ids and answers it as the quote it must be. */
export const quoteOf = (principal: Principal, ids: ReadonlyArray<string>, tool: string = testReveal.spec.id) =>
  Effect.flatMap(callReveal(principal, { ids }, tool), (response) => Schema.decodeUnknown(Quote)(response.data)).pipe(Effect.orDie)

/** Executes a quote of these ids under an idempotency key. */
export const confirm = (principal: Principal, ids: ReadonlyArray<string>, quoteToken: string, key: string) =>
  callReveal(principal, { ids, confirm: true, quote_token: quoteToken, idempotency_key: key })
