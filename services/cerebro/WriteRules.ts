import { Either, Schema } from "effect"
import { CreateInput, UpdateInput } from "../../schema/catalog/Cerebro.ts"
import { InvalidInput } from "../../schema/Errors.ts"
import type { Issue } from "../../schema/Issues.ts"
import { invalidInput } from "../tools/Tool.ts"
import { secretIn, SecretKind } from "./Secrets.ts"

interface Written {
  readonly title?: string | undefined
  readonly body?: string | undefined
  readonly tags?: ReadonlyArray<string> | undefined
  readonly pattern?: string | null | undefined
}

/** One issue per field that holds a secret: the field and the kind, never the secret. */
const secrets = (fields: Written): ReadonlyArray<Issue> => {
  const texts: Array<readonly [string, string]> = []
  if (fields.title !== undefined) texts.push(["input.title", fields.title])
  if (fields.body !== undefined) texts.push(["input.body", fields.body])
  fields.tags?.forEach((tag, i) => texts.push([`input.tags.${i}`, tag]))
  if (fields.pattern !== undefined && fields.pattern !== null) texts.push(["input.pattern", fields.pattern])
  return texts.flatMap(([path, text]) => {
    const kind = secretIn(text)
    return kind === undefined ? [] : [{
      path,
      message: `contains what looks like ${SecretKind[kind]}; Cerebro stores no secrets: remove it (the value is not shown)`
    }]
  })
}

const refuse = (issues: ReadonlyArray<Issue>) => (issues.length === 0 ? Either.void : Either.left(InvalidInput.of(issues)))

const decodeCreate = Schema.decodeUnknownEither(CreateInput, { errors: "all", onExcessProperty: "error" })
const decodeUpdate = Schema.decodeUnknownEither(UpdateInput, { errors: "all", onExcessProperty: "error" })

/**
 * The write rules of a new topic, whoever writes it: the shape its schema states (area known, title and
 * body non-empty and bounded, tags bounded, a pattern that compiles) and no secret in any text.
 */
export const checkCreate = (input: unknown): Either.Either<CreateInput, InvalidInput> =>
  Either.flatMap(decodeCreate(input).pipe(Either.mapLeft(invalidInput)), (topic) => Either.map(refuse(secrets(topic)), () => topic))

/** The same rules for the fields an update changes; an update that changes nothing is refused. */
export const checkUpdate = (input: unknown): Either.Either<UpdateInput, InvalidInput> =>
  Either.flatMap(decodeUpdate(input).pipe(Either.mapLeft(invalidInput)), (change) => {
    const { id: _id, version: _version, ...fields } = change
    if (Object.values(fields).every((v) => v === undefined)) {
      return Either.left(InvalidInput.of([{ path: "input", message: "names nothing to change: give area, title, body, tags or pattern" }]))
    }
    return Either.map(refuse(secrets(fields)), () => change)
  })
