import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"
import { Guidance, type HttpAction } from "./Guidance.ts"

const USAGE: HttpAction = { method: "GET", path: "/api/v1/usage", reason: "see the workspace's credits and hourly reads" }

export class ReadCeilingReached extends Schema.TaggedError<ReadCeilingReached>()(
  "ReadCeilingReached",
  {
    message: Schema.String,
    limit: Schema.Int.annotations({ description: "Reads a workspace on this plan may make in any hour" }),
    used: Schema.Int,
    resetsAt: Schema.String.annotations({ description: "When the oldest read of the window leaves it (ISO-8601)" }),
    retryAfterSeconds: Schema.Int.annotations({ description: "Try again after this many seconds (also sent as Retry-After)" }),
    ...Guidance
  },
  HttpApiSchema.annotations({ status: 429 })
) {}

export const QuoteRefusal = Schema.Literal("unknown", "expired", "used", "mismatch", "not_affordable")

export class QuoteRefused extends Schema.TaggedError<QuoteRefused>()(
  "QuoteRefused",
  { reason: QuoteRefusal, message: Schema.String, ...Guidance },
  HttpApiSchema.annotations({ status: 409 })
) {
  static of(reason: typeof QuoteRefusal.Type, message: string, toolId: string) {
    return new QuoteRefused({
      reason,
      message,
      hint: `Call ${toolId} without confirm to get a new quote (it changes nothing), then call it again with confirm: true, ` +
        "that quote_token and a fresh idempotency_key",
      next_actions: [{ tool: toolId, reason: "get a new quote: the same input without confirm, quote_token or idempotency_key" }]
    })
  }
}

export class IdempotencyConflict extends Schema.TaggedError<IdempotencyConflict>()(
  "IdempotencyConflict",
  { message: Schema.String, ...Guidance },
  HttpApiSchema.annotations({ status: 409 })
) {}

export class InsufficientCredits extends Schema.TaggedError<InsufficientCredits>()(
  "InsufficientCredits",
  { message: Schema.String, balance: Schema.Int, required: Schema.Int, ...Guidance },
  HttpApiSchema.annotations({ status: 402 })
) {
  static of(balance: number, required: number) {
    return new InsufficientCredits({
      message: `this needs ${required} credits and the workspace has ${balance}; nothing was charged or delivered`,
      balance,
      required,
      hint: "Ask an operator for credits (brein credits grant --workspace NAME N), or quote fewer items",
      next_actions: [USAGE]
    })
  }
}
