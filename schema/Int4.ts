import { Schema } from "effect"

/** The largest number a PostgreSQL `integer` (int4) holds: a larger one fails the statement it is bound to. */
export const MAX_INT4 = 2_147_483_647

/** A whole number from `min` that a PostgreSQL `integer` column or parameter holds; a larger one is refused with the range. */
export const Int4 = (min: number) => Schema.Int.pipe(Schema.between(min, MAX_INT4))
