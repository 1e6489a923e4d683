import { Schema } from "effect"

/**
 * How many characters the text has, counted as JSON Schema counts them: in Unicode code points, so an emoji
 * or a letter outside the Basic Multilingual Plane is one, where `.length` counts its two UTF-16 units.
 */
export const characters = (text: string): number => {
  let count = 0
  for (const _ of text) count++
  return count
}

/**
 * The text's first `max` characters (code points): a cut never splits an emoji into a lone surrogate, which
 * JSON carries as an unpaired `\ud83d` that no client can read.
 */
export const leading = (text: string, max: number): string => {
  let end = 0
  for (let taken = 0; taken < max && end < text.length; taken++) end += (text.codePointAt(end) ?? 0) > 0xffff ? 2 : 1
  return text.slice(0, end)
}

/** The text's first `max` characters (code points), and an ellipsis after them when that left some out. */
export const shortened = (text: string, max: number): string => {
  const kept = leading(text, max)
  return kept.length < text.length ? `${kept}…` : text
}

/** `text` cut to `limit` characters (code points), an ellipsis the last of them. */
export const clip = (text: string, limit: number): string => {
  const kept = leading(text, limit)
  return kept.length < text.length ? shortened(kept, limit - 1) : text
}

// A string has between length / 2 and length code points: only a length in that span needs them counted.
const atMost = (text: string, max: number) => text.length <= max || (text.length <= max * 2 && characters(text) <= max)
const atLeast = (text: string, min: number) => text.length >= min * 2 || (text.length >= min && characters(text) >= min)

/**
 * Effect's `Schema.maxLength` counting characters as the published JSON Schema's `maxLength` does (code points,
 * not UTF-16 units): what a client validated against that schema is never refused for its length.
 */
export const maxLength =
  <S extends Schema.Schema.Any>(max: number, annotations?: Schema.Annotations.Filter<Schema.Schema.Type<S>>) =>
  <A extends string>(self: S & Schema.Schema<A, Schema.Schema.Encoded<S>, Schema.Schema.Context<S>>): Schema.filter<S> =>
    self.pipe(Schema.filter((text: A) => atMost(text, max), {
      title: `maxLength(${max})`,
      description: `a string at most ${max} character(s) long`,
      jsonSchema: { maxLength: max },
      ...annotations
    }))

/** Effect's `Schema.minLength` counting characters as the published JSON Schema's `minLength` does (code points). */
export const minLength =
  <S extends Schema.Schema.Any>(min: number, annotations?: Schema.Annotations.Filter<Schema.Schema.Type<S>>) =>
  <A extends string>(self: S & Schema.Schema<A, Schema.Schema.Encoded<S>, Schema.Schema.Context<S>>): Schema.filter<S> =>
    self.pipe(Schema.filter((text: A) => atLeast(text, min), {
      title: `minLength(${min})`,
      description: `a string at least ${min} character(s) long`,
      jsonSchema: { minLength: min },
      ...annotations
    }))
