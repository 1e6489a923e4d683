import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Schema, SchemaAST } from "effect"
import { sources } from "../../layers/Registry.ts"
import { Title } from "../../schema/catalog/Cerebro.ts"
import { decodeMailboxName, MailboxName } from "../../schema/catalog/MailboxName.ts"
import { compilePattern } from "../../schema/catalog/TopicPattern.ts"
import { Credentials } from "../../schema/connections/Connection.ts"
import { issuesOf, readableIssues } from "../../schema/Issues.ts"
import { characters, clip, maxLength, minLength } from "../../schema/Length.ts"
import { settingRefused } from "../../schema/Setting.ts"
import { isObject, toJsonSchema } from "../../schema/tools/JsonSchema.ts"
import { decodeWorkspaceName, WorkspaceName } from "../../schema/WorkspaceName.ts"

/** One character to JSON Schema (one code point), two UTF-16 units to `.length`. */
const EMOJI = "😀"
const emoji = (n: number) => EMOJI.repeat(n)

/** Half of an emoji: a UTF-16 surrogate without its pair, which JSON can only carry as an unreadable escape. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

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

describe("a text cut to a length", () => {
  it("is cut between characters, never inside an emoji, and is as long as the limit says, its ellipsis counted", () => {
    for (const text of [emoji(50), `a${emoji(50)}`, `ab${emoji(50)}`]) {
      for (const limit of [1, 2, 3, 19, 20, 21, 40]) {
        const cut = clip(text, limit)
        assert.notMatch(cut, LONE_SURROGATE, `${text} at ${limit}`)
        assert.strictEqual(characters(cut), limit)
        assert.isTrue(cut.endsWith("…"))
      }
    }
    assert.strictEqual(clip(emoji(20), 20), emoji(20))
    assert.strictEqual(clip(`a${emoji(20)}`, 20), `a${emoji(18)}…`)
  })

  it("in a refusal's path, issue and setting message, is never half an emoji", () => {
    const [issue] = readableIssues([{ path: [emoji(300)], message: `is not a ${emoji(300)}` }], "input")
    assert.notMatch(issue?.path ?? "", LONE_SURROGATE)
    assert.strictEqual(characters(issue?.path ?? ""), 200)
    assert.notMatch(issue?.message ?? "", LONE_SURROGATE)
    assert.strictEqual(characters(issue?.message ?? ""), 200)
    const refused = settingRefused("BREIN_X", Schema.NumberFromString, `a${emoji(100)}`)
    assert.include(refused, JSON.stringify(`a${emoji(79)}`))
  })

  it.effect("of a workspace's or a mailbox's name a refusal repeats is cut between characters, at the name's limit", () =>
    Effect.gen(function* () {
      const name = `a${emoji(150)}`
      const workspace = yield* Effect.flip(decodeWorkspaceName(name))
      assert.strictEqual(workspace.name, `a${emoji(99)}`)
      assert.include(workspace.message, `(got ${JSON.stringify(`a${emoji(19)}`)}…, 151 characters)`)
      assert.notMatch(workspace.message, LONE_SURROGATE)
      const mailbox = yield* Effect.flip(decodeMailboxName(name))
      assert.strictEqual(mailbox.name, `a${emoji(99)}`)
    }))
})
