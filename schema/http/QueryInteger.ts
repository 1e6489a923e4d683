import { Schema } from "effect"

/**
 * A whole number from a query parameter, between `min` and `max`. The range is checked before the
 * integer: `?limit=1e300` is refused for its size, not as "not an integer" (it is no safe integer,
 * but what is wrong with it is that it is too big); `?limit=2.5` is still refused as not an integer.
 */
export const QueryInteger = (min: number, max: number) => Schema.NumberFromString.pipe(Schema.between(min, max), Schema.int())
