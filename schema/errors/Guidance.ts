import { Schema } from "effect"
import { NextAction } from "../tools/Response.ts"

export const HttpAction = Schema.Struct({
  method: Schema.Literal("GET", "POST", "PATCH", "DELETE"),
  path: Schema.String,
  reason: Schema.String
}).annotations({ identifier: "HttpAction", description: "An HTTP request that resolves the error" })
export type HttpAction = typeof HttpAction.Type

/** What a caller can do about an error: the same `hint` and `next_actions` a successful answer carries. */
export const Guidance = {
  hint: Schema.optionalWith(Schema.String, { exact: true }),
  next_actions: Schema.optionalWith(Schema.Array(Schema.Union(NextAction, HttpAction)), { exact: true })
}
export interface Guidance {
  readonly hint?: string
  readonly next_actions?: ReadonlyArray<NextAction | HttpAction>
}
