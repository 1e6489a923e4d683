import type { Schema } from "effect"

/**
 * A request body that refuses a field it does not define: a misspelt field (`inptu`, `titel`) is a
 * 422 naming it, as a tool's own input is, instead of being dropped and the request answered as if
 * it had been left out.
 */
export const closed = <Fields extends Schema.Struct.Fields>(body: Schema.Struct<Fields>): Schema.Struct<Fields> =>
  body.annotations({ parseOptions: { onExcessProperty: "error" } })
