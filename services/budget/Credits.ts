import { SqlClient } from "@effect/sql"
import { Clock, Config, Data, Effect, Option, Schema } from "effect"
import type { GrantReason, QuoteItem } from "../../schema/budget/Budget.ts"
import { LedgerKind, SpentCost } from "../../schema/budget/Budget.ts"
import { IdempotencyConflict, InsufficientCredits, QuoteRefused } from "../../schema/Errors.ts"
import type { Principal } from "../../schema/Principal.ts"
import { setting, WholeNumberFromString } from "../../schema/Setting.ts"
import type { Plan } from "../../schema/tools/Definition.ts"
import { randomToken, sha256 } from "../Crypto.ts"
import { readSnapshot } from "../Database.ts"
import { newId } from "../Ids.ts"

export const QUOTE_LIFETIME_MS = 10 * 60_000

/** The most credits a workspace's balance holds: a grant that would pass it is refused, whole. */
export const MAX_BALANCE = 1_000_000_000

const counted = (n: number) => n.toLocaleString("en-US")

const OpeningBalance = WholeNumberFromString({ min: 0, max: MAX_BALANCE }).annotations({
  description: `a whole number from 0 to ${counted(MAX_BALANCE)} (the most a balance holds)`
})

const openingCredits = (name: string, fallback: number) => setting(name, OpeningBalance).pipe(Config.withDefault(fallback))

export const OpeningCredits = Config.all({
  free: openingCredits("BREIN_OPENING_CREDITS_FREE", 0),
  paid: openingCredits("BREIN_OPENING_CREDITS_PAID", 160)
})

/** A grant that would take a balance over MAX_BALANCE: nothing was granted. */
export class BalanceCeilingExceeded extends Data.TaggedError("BalanceCeilingExceeded")<{
  readonly message: string
  readonly balance: number
  readonly amount: number
}> {
  static of(balance: number, amount: number) {
    const room = Math.max(0, MAX_BALANCE - balance)
    return new BalanceCeilingExceeded({
      message: `granting ${counted(amount)} credits would take the balance from ${counted(balance)} to ${
        counted(balance + amount)
      }, over the most a workspace holds (${counted(MAX_BALANCE)}); nothing was granted, ${
        room === 0 ? "and no more can be" : `at most ${counted(room)} more can be`
      }`,
      balance,
      amount
    })
  }
}

const Balance = Schema.Struct({ balance: Schema.Int })
const decodeBalance = Schema.decodeUnknown(Schema.Array(Balance))
const QuoteRow = Schema.Struct({
  id: Schema.String,
  workspaceId: Schema.String,
  toolId: Schema.String,
  inputDigest: Schema.String,
  items: Schema.parseJson(Schema.Array(Schema.Struct({ id: Schema.String, status: Schema.String }))),
  unit: Schema.String,
  unitPrice: Schema.Int,
  total: Schema.Int,
  expiresAt: Schema.DateFromSelf,
  usedAt: Schema.NullOr(Schema.DateFromSelf)
})
const decodeQuote = Schema.decodeUnknown(Schema.Array(QuoteRow))
// JSON is kept and read as text: the client's snake_case → camelCase renaming reaches into JSON values.
const Claimed = Schema.Struct({
  inputDigest: Schema.String,
  answer: Schema.NullOr(Schema.parseJson()),
  cost: Schema.NullOr(Schema.parseJson(SpentCost))
})
const decodeClaimed = Schema.decodeUnknown(Schema.Array(Claimed))
const Ledger = Schema.Struct({
  id: Schema.NumberFromString,
  at: Schema.DateFromSelf,
  kind: LedgerKind,
  delta: Schema.Int,
  balanceAfter: Schema.Int,
  reason: Schema.String,
  toolId: Schema.NullOr(Schema.String)
})
const decodeLedger = Schema.decodeUnknown(Schema.Array(Ledger))
const Totals = Schema.Struct({ granted: Schema.NumberFromString, spent: Schema.NumberFromString, charges: Schema.NumberFromString })
const decodeTotals = Schema.decodeUnknown(Schema.Array(Totals))

export interface Charge {
  readonly toolId: string
  readonly quoteId: string
  readonly requestId: string
  readonly reason: string
}

/** A quote taken for execution: what it may charge at most, and for how many items. */
export interface UsedQuote {
  readonly id: string
  readonly unit: string
  readonly unitPrice: number
  readonly chargeable: number
}

/** What a replayed idempotency key answers: the first call's answer and what it cost. */
export interface Replay {
  readonly answer: unknown
  readonly cost: SpentCost | null
}

/**
 * Credits: a balance per workspace that only ever changes with a ledger row written in the same
 * statement (opened lazily with its plan's opening balance), quotes, and idempotency keys.
 */
export class Credits extends Effect.Service<Credits>()("brein/budget/Credits", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const opening = yield* OpeningCredits
    const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

    const open = Effect.fn("Credits.open")(function* (workspaceId: string, plan: Plan) {
      const at = yield* now
      yield* sql`WITH opened AS (
          INSERT INTO credit_accounts (workspace_id, balance, opened_at) VALUES (${workspaceId}, ${opening[plan]}, ${at})
          ON CONFLICT (workspace_id) DO NOTHING RETURNING balance)
        INSERT INTO credit_ledger (workspace_id, at, kind, delta, balance_after, reason)
        SELECT ${workspaceId}, ${at}, 'opening', balance, balance, ${`opening balance of the ${plan} plan`} FROM opened`.pipe(Effect.orDie)
    })

    const balanceOf = (workspaceId: string) =>
      sql`SELECT balance FROM credit_accounts WHERE workspace_id = ${workspaceId}`.pipe(
        Effect.flatMap(decodeBalance),
        Effect.map(([row]) => row?.balance ?? 0),
        Effect.orDie
      )

    const balance = Effect.fn("Credits.balance")(function* (principal: Principal) {
      yield* open(principal.workspaceId, principal.plan)
      return yield* balanceOf(principal.workspaceId)
    })

    /** Adds credits with a ledger row that says why; answers the new balance. */
    const grant = Effect.fn("Credits.grant")(function* (workspaceId: string, plan: Plan, amount: number, reason: GrantReason) {
      yield* open(workspaceId, plan)
      if (amount > MAX_BALANCE) return yield* BalanceCeilingExceeded.of(yield* balanceOf(workspaceId), amount)
      const at = yield* now
      // the ceiling is compared before adding, so that the sum is never computed past the column's range
      const [row] = yield* sql`WITH added AS (
          UPDATE credit_accounts SET balance = balance + ${amount}
          WHERE workspace_id = ${workspaceId} AND balance <= ${MAX_BALANCE - amount} RETURNING balance)
        INSERT INTO credit_ledger (workspace_id, at, kind, delta, balance_after, reason)
        SELECT ${workspaceId}, ${at}, 'grant', ${amount}, balance, ${reason} FROM added RETURNING balance_after AS balance`.pipe(
        Effect.flatMap(decodeBalance),
        Effect.orDie
      )
      if (row === undefined) return yield* BalanceCeilingExceeded.of(yield* balanceOf(workspaceId), amount)
      return row.balance
    })

    /** Takes `amount` credits or none: the balance never goes below zero, whatever runs at the same time. */
    const charge = Effect.fn("Credits.charge")(function* (principal: Principal, amount: number, why: Charge) {
      if (amount === 0) return yield* balance(principal)
      yield* open(principal.workspaceId, principal.plan)
      const at = yield* now
      const [row] = yield* sql`WITH taken AS (
          UPDATE credit_accounts SET balance = balance - ${amount}
          WHERE workspace_id = ${principal.workspaceId} AND balance >= ${amount} RETURNING balance)
        INSERT INTO credit_ledger (workspace_id, at, kind, delta, balance_after, reason, tool_id, quote_id, request_id)
        SELECT ${principal.workspaceId}, ${at}, 'charge', ${-amount}, balance, ${why.reason}, ${why.toolId}, ${why.quoteId}, ${why.requestId}
        FROM taken RETURNING balance_after AS balance`.pipe(Effect.flatMap(decodeBalance), Effect.orDie)
      if (row === undefined) return yield* InsufficientCredits.of(yield* balance(principal), amount)
      return row.balance
    })

    const issueQuote = Effect.fn("Credits.issueQuote")(function* (
      principal: Principal,
      toolId: string,
      inputDigest: string,
      items: ReadonlyArray<QuoteItem>,
      cost: { readonly unit: string; readonly unitPrice: number }
    ) {
      const before = yield* balance(principal)
      const id = yield* newId("qt")
      const token = `qtok_${randomToken(24)}`
      const created = yield* now
      const expires = new Date(created.getTime() + QUOTE_LIFETIME_MS)
      const total = items.reduce((sum, item) => sum + item.unit_cost, 0)
      yield* sql`INSERT INTO quotes (id, token_hash, workspace_id, tool_id, input_digest, items, unit, unit_price, total, created_at, expires_at)
        VALUES (${id}, ${sha256(token)}, ${principal.workspaceId}, ${toolId}, ${inputDigest}, ${JSON.stringify(items)}::jsonb,
          ${cost.unit}, ${cost.unitPrice}, ${total}, ${created}, ${expires})`.pipe(Effect.orDie)
      return {
        kind: "quote" as const,
        ref: `quote:${id}`,
        quote_id: id,
        quote_token: token,
        tool: toolId,
        items,
        unit: cost.unit,
        unit_price: cost.unitPrice,
        total,
        balance_before: before,
        balance_after: before - total,
        affordable: total <= before,
        expires_at: expires.toISOString()
      }
    })

    /** Marks a live quote of this workspace, tool and input used; any other is refused, and nothing changes. */
    const useQuote = Effect.fn("Credits.useQuote")(
      function* (principal: Principal, toolId: string, token: string, inputDigest: string, requestId: string) {
        const [quote] =
          yield* sql`SELECT id, workspace_id, tool_id, input_digest, items::text AS items, unit, unit_price, total, expires_at, used_at
        FROM quotes WHERE token_hash = ${sha256(token)} FOR UPDATE`.pipe(Effect.flatMap(decodeQuote), Effect.orDie)
        if (quote === undefined || quote.workspaceId !== principal.workspaceId) {
          return yield* QuoteRefused.of("unknown", "no quote of this workspace has that quote_token", toolId)
        }
        if (quote.toolId !== toolId || quote.inputDigest !== inputDigest) {
          return yield* QuoteRefused.of(
            "mismatch",
            `that quote is for ${quote.toolId} with another input: a quote executes only the input it was made for`,
            toolId
          )
        }
        if (quote.usedAt !== null) {
          return yield* QuoteRefused.of("used", `quote ${quote.id} was already executed; a quote is single-use`, toolId)
        }
        const at = yield* now
        if (quote.expiresAt.getTime() <= at.getTime()) {
          return yield* QuoteRefused.of("expired", `quote ${quote.id} expired at ${quote.expiresAt.toISOString()}`, toolId)
        }
        yield* sql`UPDATE quotes SET used_at = ${at}, used_by = ${requestId} WHERE id = ${quote.id}`.pipe(Effect.orDie)
        return {
          id: quote.id,
          unit: quote.unit,
          unitPrice: quote.unitPrice,
          chargeable: quote.items.filter((item) => item.status === "chargeable").length
        } satisfies UsedQuote
      }
    )

    /**
     * Claims an idempotency key for this input: none if it is new (the caller then stores its answer in
     * the same transaction); the stored answer if it was used with the same input; a conflict otherwise.
     * A claim made at the same time waits on the first one's transaction.
     */
    const claimKey = Effect.fn("Credits.claimKey")(
      function* (principal: Principal, toolId: string, key: string, inputDigest: string, requestId: string) {
        const at = yield* now
        const inserted = yield* sql`INSERT INTO idempotency_keys (workspace_id, tool_id, key, input_digest, request_id, created_at)
        VALUES (${principal.workspaceId}, ${toolId}, ${key}, ${inputDigest}, ${requestId}, ${at})
        ON CONFLICT DO NOTHING RETURNING 1 AS claimed`.pipe(Effect.orDie)
        if (inserted.length > 0) return Option.none<Replay>()
        const [claimed] = yield* sql`SELECT input_digest, answer, cost FROM idempotency_keys
        WHERE workspace_id = ${principal.workspaceId} AND tool_id = ${toolId} AND key = ${key}`.pipe(
          Effect.flatMap(decodeClaimed),
          Effect.orDie
        )
        if (claimed === undefined || claimed.inputDigest !== inputDigest) {
          return yield* new IdempotencyConflict({
            message:
              `idempotency_key ${key} was used with another input for ${toolId}; a key answers only the input it was first used with`,
            hint: "Use a new idempotency_key for a new input"
          })
        }
        return Option.some<Replay>({ answer: claimed.answer, cost: claimed.cost })
      }
    )

    const keepAnswer = Effect.fn("Credits.keepAnswer")(
      function* (principal: Principal, toolId: string, key: string, answer: unknown, cost: SpentCost) {
        yield* sql`UPDATE idempotency_keys SET answer = ${JSON.stringify(answer)}, cost = ${JSON.stringify(cost)}
        WHERE workspace_id = ${principal.workspaceId} AND tool_id = ${toolId} AND key = ${key}`.pipe(Effect.orDie)
      }
    )

    const totalsOf = (workspaceId: string) =>
      sql`SELECT coalesce(sum(delta) FILTER (WHERE kind <> 'charge'), 0) AS granted,
          coalesce(-sum(delta) FILTER (WHERE kind = 'charge'), 0) AS spent, count(*) FILTER (WHERE kind = 'charge') AS charges
        FROM credit_ledger WHERE workspace_id = ${workspaceId}`.pipe(Effect.flatMap(decodeTotals), Effect.map(([row]) => row), Effect.orDie)
    const recentOf = (workspaceId: string, recent: number) =>
      sql`SELECT id::text AS id, at, kind, delta, balance_after, reason, tool_id FROM credit_ledger
        WHERE workspace_id = ${workspaceId} ORDER BY credit_ledger.id DESC LIMIT ${recent}`.pipe(Effect.flatMap(decodeLedger), Effect.orDie)

    // The balance, the totals and the recent entries on one snapshot, so that they agree even while a charge commits.
    const usage = Effect.fn("Credits.usage")(function* (principal: Principal, recent: number) {
      const workspaceId = principal.workspaceId
      yield* open(workspaceId, principal.plan)
      const [current, totals, rows] = yield* readSnapshot(
        sql,
        Effect.all([balanceOf(workspaceId), totalsOf(workspaceId), recentOf(workspaceId, recent)])
      )
      const charges = totals?.charges ?? 0
      const spent = totals?.spent ?? 0
      return {
        balance: current,
        granted_total: totals?.granted ?? 0,
        spent_total: spent,
        charges,
        average_charge: charges === 0 ? 0 : Math.round((spent / charges) * 100) / 100,
        recent: rows.map((r) => ({
          id: r.id,
          at: r.at.toISOString(),
          kind: r.kind,
          delta: r.delta,
          balance_after: r.balanceAfter,
          reason: r.reason,
          tool_id: r.toolId
        }))
      }
    })

    return { open, balance, grant, charge, issueQuote, useQuote, claimKey, keepAnswer, usage }
  })
}) {}
