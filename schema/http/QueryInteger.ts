import { Schema } from "effect"
import { clip } from "../Length.ts"

/**
 * A query parameter's text. Given twice (`?limit=1&limit=2`) it reads as a list of both: said so, rather
 * than as "must be a string, got an array", which a client that wrote no array cannot place.
 */
export const QueryParam = Schema.String.annotations({
  message: (issue) => ({
    message: Array.isArray(issue.actual) ? `must be given once, got ${issue.actual.length} values` : "must be text",
    override: true
  })
})

/**
 * A whole number as a query parameter or header writes it: digits, a minus sign at most. What `Number`
 * would also read (`0x10`, `+5`, `1e3`, ` 5`, an empty value as 0) is refused rather than read as a
 * number the client did not write.
 */
const Digits = QueryParam.pipe(
  Schema.pattern(/^-?\d+$/, { message: (issue) => `must be a whole number written in digits, got ${JSON.stringify(issue.actual)}` })
)

const MAX_QUOTED = 40

/** The number as the client wrote it: a long one by its start and its length. */
const written = (digits: string) =>
  digits.length <= MAX_QUOTED ? digits : `${clip(digits, 20)} (${digits.length.toLocaleString("en-US")} characters)`

/**
 * A whole number from a query parameter, between `min` and `max`. The range is checked on the digits,
 * so a refusal quotes what was sent: `?limit=99999999999999999999` is refused for its size, not for
 * being past the safe integers, and not as the 100000000000000000000 that `Number` reads.
 */
export const QueryInteger = (min: number, max: number) =>
  Digits.pipe(
    Schema.filter((digits) => {
      const value = BigInt(digits)
      return (value >= BigInt(min) && value <= BigInt(max)) || `must be a number between ${min} and ${max}, got ${written(digits)}`
    }),
    Schema.compose(Schema.NumberFromString)
  )
