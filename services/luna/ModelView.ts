import { isObject } from "../../schema/tools/JsonSchema.ts"

/** What the model must never see of a tool result: the tokens that let a caller spend or replay (DESIGN §8). */
export const HIDDEN_FROM_MODEL: ReadonlyArray<string> = ["quote_token", "idempotency_key", "correlation_id"]

/** A tool result as the model reads it: the hidden tokens removed, wherever they stand. */
export const modelView = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(modelView)
  if (!isObject(value)) return value
  return Object.fromEntries(
    Object.entries(value).filter(([key]) => !HIDDEN_FROM_MODEL.includes(key)).map(([key, v]) => [key, modelView(v)])
  )
}
