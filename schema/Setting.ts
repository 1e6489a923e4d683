import { Config, ConfigError, Duration, Either, Option, ParseResult, Schema, SchemaAST } from "effect"
import { leading } from "./Length.ts"

const counted = (n: number) => n.toLocaleString("en-US")

export interface Range {
  readonly min: number
  /** Unset: any safe integer from `min` up. */
  readonly max?: number
  /** What the number counts, said after "a number of": "seconds". */
  readonly unit?: string
  /** `min` itself is refused: "more than 0". */
  readonly aboveMin?: boolean
}

const described = (kind: string, { aboveMin, max, min, unit }: Range) => {
  const what = unit === undefined ? kind : `${kind} of ${unit}`
  if (aboveMin === true) return `${what} more than ${counted(min)}${max === undefined ? "" : ` and at most ${counted(max)}`}`
  return max === undefined ? `${what}, ${counted(min)} or more` : `${what} from ${counted(min)} to ${counted(max)}`
}

const decimalWithin = ({ aboveMin, max = Number.MAX_SAFE_INTEGER, min }: Range) =>
  aboveMin === true
    ? Schema.Number.pipe(Schema.greaterThan(min), Schema.lessThanOrEqualTo(max))
    : Schema.Number.pipe(Schema.between(min, max))

/**
 * A whole number as an operator writes one: decimal digits only (a number parser also reads 0x10, 1e3,
 * 4.0 and +5), within `range`.
 */
export const WholeNumberFromString = (range: Range) =>
  Schema.compose(Schema.String.pipe(Schema.pattern(/^[0-9]{1,16}$/)), Schema.NumberFromString).pipe(
    Schema.compose(Schema.Int.pipe(Schema.between(range.min, range.max ?? Number.MAX_SAFE_INTEGER))),
    Schema.annotations({ description: described("a whole number", range) })
  )

/**
 * Whole numbers separated by commas ("100000,1000000"), each as `WholeNumberFromString` takes it and within
 * `range`; at least one, and none left empty ("10,,20").
 */
export const WholeNumbersFromString = (range: Range) =>
  Schema.compose(Schema.split(","), Schema.NonEmptyArray(Schema.compose(Schema.Trim, WholeNumberFromString(range)))).pipe(
    Schema.annotations({ description: `${described("whole numbers", range)}, separated by commas` })
  )

/** A number as an operator writes one: digits, and a fraction at most (0.5; not 1e3, Infinity or 0x10), within `range`. */
export const DecimalFromString = (range: Range) =>
  Schema.compose(Schema.String.pipe(Schema.pattern(/^[0-9]{1,15}(\.[0-9]{1,15})?$/)), Schema.NumberFromString).pipe(
    Schema.compose(decimalWithin(range)),
    Schema.annotations({ description: described("a number", range) })
  )

/** A TCP port to listen on; 0 takes any free one. */
export const TcpPort = WholeNumberFromString({ min: 0, max: 65_535 }).annotations({
  description: "a port from 0 (any free port) to 65,535"
})

/** A wait in milliseconds, up to a day. */
export const Milliseconds = WholeNumberFromString({ min: 0, max: 86_400_000, unit: "milliseconds" })

const MAX_DURATION_MILLIS = 86_400_000

/**
 * A duration as an operator writes one ("90 seconds", "2 minutes", "500 millis"), longer than zero and a day
 * at most (past 24.8 days a timer fires never).
 */
export const DurationFromString = Schema.transformOrFail(Schema.String, Schema.DurationFromSelf, {
  strict: true,
  decode: (text, _, ast) =>
    Option.match(Option.filter(Duration.decodeUnknown(text), (d) => Duration.isFinite(d)), {
      onNone: () => ParseResult.fail(new ParseResult.Type(ast, text, "not a duration")),
      onSome: ParseResult.succeed
    }),
  encode: (duration) => ParseResult.succeed(Duration.format(duration))
}).pipe(
  Schema.filter((d) => Duration.greaterThan(d, Duration.zero) && Duration.lessThanOrEqualTo(d, Duration.millis(MAX_DURATION_MILLIS))),
  Schema.annotations({ description: "a duration such as \"90 seconds\", longer than 0 and a day at most" })
)

/** What `schema` takes, as its description says it. */
const expected = (schema: Schema.Schema.Any) => Option.getOrElse(SchemaAST.getDescriptionAnnotation(schema.ast), () => String(schema.ast))

/** Why the setting `name` refuses `shown` (the value as it may be printed): what `schema` takes, and what was given. */
export const settingRefused = (name: string, schema: Schema.Schema.Any, shown: string) =>
  `${name} must be ${expected(schema)}, not ${JSON.stringify(leading(shown, 80))}`

/**
 * The setting `name`, its text (spaces around it dropped) decoded by `schema`. A value the schema refuses
 * fails naming the setting, the value, and what the schema's description says it takes.
 */
export const setting = <A>(name: string, schema: Schema.Schema<A, string>): Config.Config<A> =>
  Config.string(name).pipe(
    Config.mapOrFail((text) =>
      Either.mapLeft(
        Schema.decodeUnknownEither(schema)(text.trim()),
        () => ConfigError.InvalidData([], settingRefused(name, schema, text))
      )
    )
  )
