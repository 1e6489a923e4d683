import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"
import { Guidance } from "../Errors.ts"

/**
 * No model is configured: a turn cannot start, nor will until one is set, so it carries no Retry-After.
 * The message says which settings to give.
 */
export class ModelNotConfigured extends Schema.TaggedError<ModelNotConfigured>()(
  "ModelNotConfigured",
  { message: Schema.String, ...Guidance },
  HttpApiSchema.annotations({ status: 503 })
) {
  static readonly default = new ModelNotConfigured({
    message: "Luna has no model configured: set LUNA_MODEL_BASE_URL to an OpenAI-compatible chat-completions endpoint, " +
      "and LUNA_MODEL_API_KEY if it takes a key (LUNA_MODEL sets the model, deepseek-v4-flash by default)",
    hint: "LUNA_FALLBACK_BASE_URL, LUNA_FALLBACK_API_KEY and LUNA_FALLBACK_MODEL (gpt-5.6-luna by default) add a fallback"
  })
}

/** Neither the primary model nor the fallback answered (after their retries). */
export class ModelUnavailable extends Schema.TaggedError<ModelUnavailable>()(
  "ModelUnavailable",
  {
    message: Schema.String,
    attempts: Schema.Array(Schema.Struct({ model: Schema.String, problem: Schema.String })).annotations({
      description: "Each model tried, in order, and why it did not answer"
    }),
    ...Guidance
  },
  HttpApiSchema.annotations({ status: 503 })
) {}
