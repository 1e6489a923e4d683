import { Config, ConfigError, Either, Option, Schema, SchemaAST } from "effect"

const counted = (n: number) => n.toLocaleString("en-US")

export interface Range {
  readonly min: number
  /** Unset: any safe integer from `min` up. */
  readonly max?: number
  /** What the number counts, said after "a number of": "seconds". */
  readonly unit?: string
}

const described = (kind: string, { max, min, unit }: Range) => {
  const what = unit === undefined ? kind : `${kind} of ${unit}`
  return max === undefined ? `${what}, ${counted(min)} or more` : `${what} from ${counted(min)} to ${counted(max)}`
}

/**
 * A whole number as an operator writes one: decimal digits only (a number parser also reads 0x10, 1e3,
 * 4.0 and +5), within `range`.
 */
export const WholeNumberFromString = (range: Range) =>
  Schema.compose(Schema.String.pipe(Schema.pattern(/^[0-9]{1,16}$/)), Schema.NumberFromString).pipe(
    Schema.compose(Schema.Int.pipe(Schema.between(range.min, range.max ?? Number.MAX_SAFE_INTEGER))),
    Schema.annotations({ description: described("a whole number", range) })
  )

/** A number as an operator writes one: digits, and a fraction at most (0.5; not 1e3, Infinity or 0x10), within `range`. */
export const DecimalFromString = (range: Range) =>
  Schema.compose(Schema.String.pipe(Schema.pattern(/^[0-9]{1,15}(\.[0-9]{1,15})?$/)), Schema.NumberFromString).pipe(
    Schema.compose(Schema.Number.pipe(Schema.between(range.min, range.max ?? Number.MAX_SAFE_INTEGER))),
    Schema.annotations({ description: described("a number", range) })
  )

/** What `schema` takes, as its description says it. */
const expected = (schema: Schema.Schema.Any) => Option.getOrElse(SchemaAST.getDescriptionAnnotation(schema.ast), () => String(schema.ast))

/** Why the setting `name` refuses `shown` (the value as it may be printed): what `schema` takes, and what was given. */
export const settingRefused = (name: string, schema: Schema.Schema.Any, shown: string) =>
  `${name} must be ${expected(schema)}, not ${JSON.stringify(shown.slice(0, 80))}`

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
