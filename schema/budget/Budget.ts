import { Schema } from "effect"
import { maxLength, minLength } from "../Length.ts"

/** The fields a credits tool takes besides its own: without `confirm` it answers a quote and changes nothing. */
export const BudgetFields = {
  confirm: Schema.optional(Schema.Boolean).annotations({
    description: "true to execute a quote; absent or false: answer a quote (items, cost, balance after, quote_token) and change nothing"
  }),
  quote_token: Schema.optional(Schema.String.pipe(maxLength(200))).annotations({
    description: "The quote_token of a live quote for this same input (with confirm: true)"
  }),
  idempotency_key: Schema.optional(
    Schema.String.pipe(minLength(8), maxLength(200), Schema.pattern(/^[A-Za-z0-9._:-]+$/))
  ).annotations({
    description: "A key of your choosing, 8–200 of A-Z a-z 0-9 . _ : - (with confirm: true): the same key with the same input " +
      "answers the first result again at no cost"
  })
}
const REQUIRED_WITH_CONFIRM = "is required with confirm: true (call without confirm first: its quote has the quote_token)"

/**
 * A confirmed call names the quote it executes and its idempotency key: refused at decoding, on every surface and
 * in a decision Luna proposes, as the input's JSON Schema says.
 */
export const confirmedWithQuote = <
  S extends Schema.Schema.Any & {
    readonly Type: {
      readonly confirm?: boolean | undefined
      readonly quote_token?: string | undefined
      readonly idempotency_key?: string | undefined
    }
  }
>(self: S) =>
  self.pipe(Schema.filter((input: Schema.Schema.Type<S>) =>
    input.confirm !== true || [
      input.quote_token !== undefined || { path: ["quote_token"], message: REQUIRED_WITH_CONFIRM },
      input.idempotency_key !== undefined || { path: ["idempotency_key"], message: "is required with confirm: true" }
    ], {
    jsonSchema: {
      if: { properties: { confirm: { const: true } }, required: ["confirm"] },
      then: { required: ["quote_token", "idempotency_key"] }
    }
  }))

/** What a confirmed call `confirmedWithQuote` refused is told to do, by the first field it lacks. */
export const confirmHint = (toolId: string, missing: "quote_token" | "idempotency_key") =>
  missing === "quote_token"
    ? `Call ${toolId} without confirm first: it answers a quote (what it would deliver, the total, a quote_token valid 10 minutes) ` +
      `and changes nothing. Then call it again with the same input plus confirm: true, that quote_token and an idempotency_key ` +
      `of your choosing.`
    : `Add an idempotency_key of your choosing (8–200 of A-Z a-z 0-9 . _ : -) to the call with confirm: true and its quote_token: ` +
      `the same key with the same input answers the first result again at no cost.`

export const BUDGET_FIELD_NAMES: ReadonlySet<string> = new Set(Object.keys(BudgetFields))

export const QuoteItemStatus = Schema.Literal("chargeable", "already_owned", "no_data", "not_found").annotations({
  description: "chargeable: charged only if delivered; already_owned (delivered before), no_data (the record exists but has " +
    "nothing to deliver) and not_found (no such record) cost nothing"
})

export const QuoteItem = Schema.Struct({
  id: Schema.String,
  label: Schema.String,
  status: QuoteItemStatus,
  unit_cost: Schema.Int
})
export type QuoteItem = typeof QuoteItem.Type

export const Quote = Schema.Struct({
  kind: Schema.Literal("quote"),
  ref: Schema.String,
  quote_id: Schema.String,
  quote_token: Schema.String.annotations({ description: "Send it back with confirm: true to execute; single use, bound to this input" }),
  tool: Schema.String,
  items: Schema.Array(QuoteItem),
  unit: Schema.String,
  unit_price: Schema.Int,
  total: Schema.Int.annotations({ description: "The most this can charge: only delivered items are charged" }),
  balance_before: Schema.Int,
  balance_after: Schema.Int,
  affordable: Schema.Boolean,
  expires_at: Schema.String
}).annotations({ identifier: "Quote", description: "What a credits call would cost; nothing was charged or changed" })
export type Quote = typeof Quote.Type

export const ReadSpent = Schema.Struct({
  kind: Schema.Literal("read"),
  reads: Schema.Int,
  used: Schema.Int.annotations({ description: "Reads counted in the current hour, this one included" }),
  limit: Schema.Int,
  resets_at: Schema.String
})

export const CreditsSpent = Schema.Struct({
  kind: Schema.Literal("credits"),
  credits: Schema.Int.annotations({ description: "Credits charged by this call: only for what was delivered" }),
  unit: Schema.String,
  unit_price: Schema.Int,
  delivered: Schema.Int,
  balance_after: Schema.Int,
  quote_id: Schema.String,
  replayed: Schema.Boolean.annotations({ description: "true when an idempotency key answered a stored result at no cost" })
})

export const SpentCost = Schema.Union(ReadSpent, CreditsSpent).annotations({
  identifier: "Cost",
  description: "What this call spent (citable figures)"
})
export type SpentCost = typeof SpentCost.Type

export const LedgerKind = Schema.Literal("opening", "grant", "charge")

/**
 * Decoding trims: the ledger keeps the words, not the spaces around them. Branded: `Credits.grant` takes
 * only a reason that went through this check (`GrantReason.make` for a constant one).
 */
export const GrantReason = Schema.Trim.pipe(
  Schema.filter((reason) => reason !== "", { message: () => "must not be blank: the ledger says it as why the credits were added" }),
  Schema.brand("GrantReason")
).annotations({ identifier: "GrantReason", description: "Why credits were added, as the ledger says it: text with a visible character" })
export type GrantReason = typeof GrantReason.Type

export const LedgerEntry = Schema.Struct({
  id: Schema.Int,
  at: Schema.String,
  kind: LedgerKind,
  delta: Schema.Int,
  balance_after: Schema.Int,
  reason: Schema.String,
  tool_id: Schema.NullOr(Schema.String)
})
export type LedgerEntry = typeof LedgerEntry.Type

export const ReadsUsage = Schema.Struct({
  used: Schema.Int,
  limit: Schema.Int,
  remaining: Schema.Int,
  window: Schema.Literal("1h"),
  resets_at: Schema.NullOr(Schema.String).annotations({ description: "When the oldest read of the hour leaves it; null with none" })
})

export const Usage = Schema.Struct({
  ref: Schema.String,
  workspace: Schema.String,
  plan: Schema.Literal("free", "paid"),
  credits: Schema.Struct({
    balance: Schema.Int,
    granted_total: Schema.Int,
    spent_total: Schema.Int,
    charges: Schema.Int.annotations({ description: "How many charges the ledger holds" }),
    average_charge: Schema.Number.annotations({ description: "spent_total / charges (0 without charges)" }),
    recent: Schema.Array(LedgerEntry)
  }),
  reads: ReadsUsage
}).annotations({ identifier: "Usage" })
export type Usage = typeof Usage.Type
