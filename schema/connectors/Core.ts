import { DateTime, Option, Schema } from "effect"
import { maxLength } from "../Length.ts"

export const TimeZone = Schema.String.pipe(
  // Intl.supportedValuesOf lists ICU's legacy names only (Asia/Calcutta, not Asia/Kolkata)
  Schema.filter((tz) => Option.isSome(DateTime.zoneMakeNamed(tz)), {
    message: (issue) => `must be an IANA time zone, got ${JSON.stringify(issue.actual)}`
  })
).annotations({ description: "An IANA time zone such as America/Santiago", examples: ["America/Santiago", "UTC"] })

export const TimestampNowInput = Schema.Struct({
  timezone: Schema.optionalWith(TimeZone, { exact: true })
})

export const TimestampNowOutput = Schema.Struct({
  iso: Schema.String.annotations({ description: "The instant in ISO-8601, with the zone's offset" }),
  epochMs: Schema.Int.annotations({ description: "Milliseconds since the Unix epoch" }),
  timezone: Schema.String
})

export const ReflectInput = Schema.Struct({
  message: Schema.String.pipe(maxLength(10_000)).annotations({ description: "Any text; it comes back unchanged" })
})

export const ReflectOutput = Schema.Struct({ message: Schema.String })

export const pureHints = { readOnly: true, destructive: false, idempotent: true, openWorld: false } as const
