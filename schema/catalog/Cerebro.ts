import { Either, Schema } from "effect"
import { Int4 } from "../Int4.ts"
import { maxLength, minLength } from "../Length.ts"
import { publishDecoded } from "../tools/JsonSchema.ts"
import { compilePattern, PATTERN_MAX, PATTERN_MAX_VARIABLES, PATTERN_VARIABLES } from "./TopicPattern.ts"

export const TopicId = Schema.String.pipe(
  maxLength(40),
  Schema.pattern(/^tp_[A-Za-z0-9]+$/, { message: () => "must be a topic id (tp_…)" }),
  Schema.brand("TopicId")
).annotations({ description: "A topic's id (tp_…)" })
export type TopicId = typeof TopicId.Type

export const AREAS = ["clientes", "producto", "mercado", "procesos", "competencia", "equipo"] as const

export const Area = Schema.Literal(...AREAS).annotations({
  description: "What the topic is about: clientes (accounts, contacts, their history), producto (what we sell, prices, " +
    "objections), mercado (segments, industries, regions), procesos (how the team works: steps, naming, email " +
    "conventions), competencia (competitors and how we compare), equipo (who does what, territories)"
})
export type Area = typeof Area.Type

export const TITLE_MAX = 120
export const BODY_MAX = 8000
export const TAGS_MAX = 10
export const TAG_MAX = 40

export const Title = publishDecoded(
  Schema.Trim.pipe(
    minLength(1, { message: () => "must not be empty" }),
    maxLength(TITLE_MAX)
  ).annotations({ description: `The topic's title, 1–${TITLE_MAX} characters; unique (ignoring case and accents) within its area` })
)

export const Body = Schema.String.pipe(
  Schema.filter((s) => s.trim() !== "", { message: () => "must not be empty" }),
  maxLength(BODY_MAX)
).annotations({ description: `The topic's text, in markdown, at most ${BODY_MAX} characters` })

export const Tag = Schema.String.pipe(
  maxLength(TAG_MAX),
  Schema.pattern(/^[\p{Ll}\p{N}][\p{Ll}\p{N}_-]*$/u, {
    message: () => "must be a lower-case word (letters, digits, - and _), such as retail or cuenta-clave"
  })
)

/** A set: a tag given twice is kept once (in its first place), so repeating one changes nothing of a topic. */
export const Tags = Schema.transform(Schema.Array(Tag).pipe(Schema.maxItems(TAGS_MAX)), Schema.Array(Tag), {
  strict: true,
  decode: (tags) => [...new Set(tags)],
  encode: (tags) => tags
}).annotations({ description: `Up to ${TAGS_MAX} lower-case tags; a repeated tag is kept once` })

const compiles = (s: string) => Either.match(compilePattern(s), { onLeft: (problem) => problem, onRight: () => true })

const PATTERN_DESCRIPTION = "A structured fact the team reuses, such as an email subject or a naming convention: one line of text " +
  `(at most ${PATTERN_MAX} characters) with 1–${PATTERN_MAX_VARIABLES} placeholders {{variable}}, each one of ` +
  `${PATTERN_VARIABLES.join(", ")}; two placeholders are separated by some text and no brace stands outside a placeholder. ` +
  "Example: \"{{empresa}} × Brein: propuesta para {{cargo}}\""

export const Pattern = Schema.String.pipe(Schema.filter(compiles)).annotations({ description: PATTERN_DESCRIPTION })

// One schema for "a pattern or null", so that a pattern that does not compile is one issue, not one per alternative.
const PatternOrNull = Schema.NullOr(Schema.String).pipe(Schema.filter((s) => s === null || compiles(s))).annotations({
  description: `${PATTERN_DESCRIPTION}; null removes the pattern`
})

const optional = <S extends Schema.Schema.All>(schema: S) => Schema.optionalWith(schema, { exact: true })

const Version = Int4(1)

export const Topic = Schema.Struct({
  id: TopicId,
  area: Area,
  title: Schema.String,
  body: Schema.String,
  tags: Schema.Array(Schema.String),
  pattern: Schema.NullOr(Schema.String),
  pattern_variables: Schema.Array(Schema.String).annotations({ description: "The variables the pattern uses (empty without one)" }),
  version: Version.annotations({ description: "Starts at 1; each update adds one. Every version is kept" }),
  created_at: Schema.String,
  updated_at: Schema.String,
  created_by: Schema.String.annotations({ description: "The API key (key_…) or in-process surface that created the topic" }),
  updated_by: Schema.String
})
export type Topic = typeof Topic.Type

const Ref = Schema.String.annotations({ description: "What to cite: topic:<id>@v<version>" })

export const RetrieveInput = Schema.Struct({
  query: optional(Schema.String.pipe(maxLength(200))).annotations({
    description: "Words to look for in titles, tags and bodies (ignoring case and accents); leave out to list the newest"
  }),
  area: optional(Area),
  tags: optional(Tags).annotations({ description: "Only topics carrying all of these tags" }),
  limit: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 50)), { exact: true, default: () => 10 }).annotations({
    description: "At most this many results (1–50, 10 by default)"
  })
})

export const SNIPPET_MAX = 200

export const RetrieveOutput = Schema.Struct({
  ref: Schema.String.annotations({ description: "What to cite for this search: cerebro.search:<search_id>" }),
  search_id: Schema.String,
  total: Schema.Int.annotations({ description: "How many topics match, of which `results` are the best ranked" }),
  results: Schema.Array(Schema.Struct({
    ref: Ref,
    id: TopicId,
    area: Area,
    title: Schema.String,
    tags: Schema.Array(Schema.String),
    snippet: Schema.String.annotations({ description: `At most ${SNIPPET_MAX} characters of the body around the match` }),
    version: Version,
    updated_at: Schema.String
  }))
})

export const GetInput = Schema.Struct({
  id: TopicId,
  version: optional(Version).annotations({ description: "A past version to read; the current one when left out" })
})

export const GetOutput = Schema.Struct({
  ref: Ref,
  topic: Topic,
  latest_version: Version
})

export const CreateInput = Schema.Struct({
  area: Area,
  title: Title,
  body: Body,
  tags: Schema.optionalWith(Tags, { exact: true, default: () => [] }),
  pattern: optional(Pattern)
})
export type CreateInput = typeof CreateInput.Type

export const CreateOutput = Schema.Struct({ ref: Ref, topic: Topic })

export const UpdateInput = Schema.Struct({
  id: TopicId,
  version: Version.annotations({ description: "The version the change is based on (from context_get); a newer one refuses the change" }),
  area: optional(Area),
  title: optional(Title),
  body: optional(Body),
  tags: optional(Tags),
  pattern: optional(PatternOrNull)
})
export type UpdateInput = typeof UpdateInput.Type

export const UpdateOutput = Schema.Struct({
  ref: Ref,
  topic: Topic,
  changed: Schema.Boolean.annotations({
    description: "false when the topic already said this: no new version was made and topic.version is unchanged"
  }),
  previous_version: Version.annotations({ description: "The version before this call (topic.version itself when changed is false)" })
})

export const topicRef = (id: string, version: number) => `topic:${id}@v${version}`
