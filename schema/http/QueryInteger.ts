import { Schema } from "effect"

/**
 * A whole number as a query parameter or header writes it: digits, a minus sign at most. What `Number`
 * would also read (`0x10`, `+5`, `1e3`, ` 5`, an empty value as 0) is refused rather than read as a
 * number the client did not write.
 */
const Digits = Schema.String.pipe(
  Schema.pattern(/^-?\d+$/, { message: (issue) => `must be a whole number written in digits, got ${JSON.stringify(issue.actual)}` })
)

/**
 * A whole number from a query parameter, between `min` and `max`. The range is checked on the number:
 * `?limit=99999999999999999999` is refused for its size, not for being past the safe integers.
 */
export const QueryInteger = (min: number, max: number) =>
  Schema.compose(Digits, Schema.NumberFromString).pipe(Schema.between(min, max), Schema.int())
