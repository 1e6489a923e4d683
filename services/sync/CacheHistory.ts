import { Schema } from "effect"

/** One earlier version of a cached row, as cache_history keeps it. */
export const HistoryRow = Schema.Struct({
  naturalKey: Schema.String,
  version: Schema.Number,
  snapshot: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  validFrom: Schema.DateFromSelf,
  validTo: Schema.DateFromSelf
})
export type HistoryRow = typeof HistoryRow.Type

export const decodeHistory = Schema.decodeUnknown(Schema.Array(HistoryRow))
