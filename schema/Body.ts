import { ParseResult, Schema } from "effect"
import { NOT_A_FIELD } from "./Issues.ts"
import { isObject, type JsonObject } from "./tools/JsonSchema.ts"

/**
 * A request body that refuses a field it does not define: a misspelt field (`inptu`, `titel`) is a
 * 422 naming it, as a tool's own input is, instead of being dropped and the request answered as if
 * it had been left out.
 */
export const closed = <Fields extends Schema.Struct.Fields>(body: Schema.Struct<Fields>): Schema.Struct<Fields> =>
  body.annotations({ parseOptions: { onExcessProperty: "error" } })

// not `closed(Schema.Struct({}))`: a struct without fields checks nothing, so it takes any value but null
const NoFields = Schema.Record({ key: Schema.String, value: Schema.Never.annotations({ message: () => NOT_A_FIELD }) })

/**
 * The body of a route that acts on its path alone: none, or `{}`. A field is refused by name, as
 * `closed` refuses one, and so is a body that is not a JSON object, before the route acts: a
 * `{"force": true}` is never answered as if it had been obeyed.
 */
export const EmptyBody = Schema.transformOrFail(
  // a request without a body reads as null
  Schema.Unknown.annotations({ jsonSchema: { type: "object", additionalProperties: false } }),
  NoFields,
  { strict: false, decode: (body) => ParseResult.succeed(body ?? {}), encode: ParseResult.succeed }
).annotations({ description: "Nothing: send no body, or {}" })

/** OpenAPI for a route whose body is an EmptyBody: it may be left out (the document marks every declared body required). */
export const bodyOptional = (operation: JsonObject): JsonObject => {
  const body = operation["requestBody"]
  return isObject(body) ? { ...operation, requestBody: { ...body, required: false } } : operation
}
