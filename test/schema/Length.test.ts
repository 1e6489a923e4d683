import { assert, describe, it } from "@effect/vitest"
import { Either, Schema, SchemaAST } from "effect"
import { sources } from "../../layers/Registry.ts"
import { Title } from "../../schema/catalog/Cerebro.ts"
import { MailboxName } from "../../schema/catalog/MailboxName.ts"
import { compilePattern } from "../../schema/catalog/TopicPattern.ts"
import { Credentials } from "../../schema/connections/Connection.ts"
import { issuesOf } from "../../schema/Issues.ts"
import { maxLength, minLength } from "../../schema/Length.ts"
import { isObject, toJsonSchema } from "../../schema/tools/JsonSchema.ts"
import { WorkspaceName } from "../../schema/WorkspaceName.ts"

/** One character to JSON Schema (one code point), two UTF-16 units to `.length`. */
const EMOJI = "😀"
const emoji = (n: number) => EMOJI.repeat(n)

const refusal = <A, I>(schema: Schema.Schema<A, I>, value: unknown) =>
  Either.match(Schema.decodeUnknownEither(schema)(value), {
    onLeft: (error) => issuesOf(error, "").issues.map((issue) => issue.message).join("; "),
    onRight: () => "accepted"
  })

/** The fields of a struct, or of the struct a defaulted field's transformation decodes from. */
const fieldsOf = (ast: SchemaAST.AST): ReadonlyArray<SchemaAST.PropertySignature> => {
  if (SchemaAST.isTypeLiteral(ast)) return ast.propertySignatures
  if (SchemaAST.isTransformation(ast)) return fieldsOf(ast.from)
  return []
}

describe("a string's length", () => {
  it("is counted in characters (code points), as the published JSON Schema counts it, and said so when refused", () => {
    const Name = Schema.String.pipe(minLength(2), maxLength(100))
    assert.deepStrictEqual(toJsonSchema(Name), {
      type: "string",
      description: "a string at most 100 character(s) long",
      minLength: 2,
      maxLength: 100
    })
    assert.strictEqual(refusal(Name, emoji(100)), "accepted")
    assert.strictEqual(refusal(Name, emoji(2)), "accepted")
    assert.strictEqual(refusal(Name, "é👍🏽"), "accepted")
    assert.strictEqual(refusal(Name, emoji(101)), "must be at most 100 characters, got 101")
    assert.strictEqual(refusal(Name, EMOJI), "must be at least 2 characters, got 1")
    assert.strictEqual(refusal(Name, "a".repeat(101)), "must be at most 100 characters, got 101")
    assert.strictEqual(refusal(Name, "a".repeat(250)), "must be at most 100 characters, got 250")
  })

  it("of each tool's string field, as many emoji as its published maxLength are accepted, and as many as its minLength", () => {
    const refused: Array<string> = []
    let checked = 0
    for (const source of sources) {
      for (const tool of source.tools) {
        const properties = toJsonSchema(tool.input)["properties"]
        if (!isObject(properties)) continue
        for (const field of fieldsOf(tool.input.ast)) {
          const published = properties[String(field.name)]
          if (!isObject(published) || published["type"] !== "string" || "pattern" in published || "enum" in published) continue
          const decode = Schema.decodeUnknownEither(Schema.make(field.type))
          for (const key of ["maxLength", "minLength"]) {
            const n = published[key]
            if (typeof n !== "number" || n === 0) continue
            checked++
            if (Either.isLeft(decode(emoji(n)))) refused.push(`${tool.spec.id}.${String(field.name)}: ${n} emoji (${key})`)
          }
        }
      }
    }
    assert.isAtLeast(checked, 15)
    assert.deepStrictEqual(refused, [])
  })

  it("of a clave, a title, a workspace's, a mailbox's name and a topic pattern is counted in characters", () => {
    assert.strictEqual(refusal(Credentials, { rut: "76086428-5", clave: emoji(256) }), "accepted")
    assert.strictEqual(refusal(Credentials, { rut: "76086428-5", clave: emoji(129) }), "accepted")
    assert.match(refusal(Credentials, { rut: "76086428-5", clave: emoji(257) }), /^must be at most 256 characters/)
    assert.strictEqual(refusal(Title, emoji(120)), "accepted")
    assert.strictEqual(refusal(Title, emoji(121)), "must be at most 120 characters, got 121")
    assert.strictEqual(refusal(WorkspaceName, emoji(100)), "accepted")
    assert.strictEqual(refusal(WorkspaceName, emoji(101)), "a workspace name must be at most 100 characters")
    assert.strictEqual(refusal(MailboxName, emoji(100)), "accepted")
    assert.strictEqual(refusal(MailboxName, emoji(101)), "must be at most 100 characters, not 101")
    assert.isTrue(Either.isRight(compilePattern(`{{empresa}} ${emoji(180)}`)))
    assert.deepStrictEqual(compilePattern(`{{empresa}} ${emoji(190)}`), Either.left("must be at most 200 characters, got 202"))
  })
})
