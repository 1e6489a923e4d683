import { assert, describe, it, layer } from "@effect/vitest"
import { Effect, Either } from "effect"
import { compilePattern, renderPattern } from "../../../schema/catalog/TopicPattern.ts"
import { secretIn } from "../../../services/cerebro/Secrets.ts"
import { issuePrincipal, ServicesTest } from "../../support/TestLayers.ts"
import { call, create, failure, topicOf } from "./Support.ts"

const valid = { area: "procesos", title: "Convenciones", body: "Texto." }

const refusedAt = (error: { readonly _tag: string }, path: string) => {
  assert.strictEqual(error._tag, "InvalidInput")
  if (error._tag !== "InvalidInput" || !("issues" in error)) return ""
  const issues = error.issues as ReadonlyArray<{ readonly path: string; readonly message: string }>
  assert.deepStrictEqual(issues.map((i) => i.path), [path])
  return issues[0]?.message ?? ""
}

// Made up: shaped like the real thing, valid nowhere.
const SECRETS: ReadonlyArray<readonly [kind: string, secret: string, label: string]> = [
  ["api_key", "sk-proj-Q7fZr2LmXw9KcVb4TnYp", "an API key"],
  ["api_key", "brein_sk_Zq8PwLr3Tx6VnM2Kc9Bd4Fh7Jy1Gs5", "an API key"],
  ["api_key", "ghp_R4nD0mL00k1ngT0k3nF0rT3st1ngXyZ12", "an API key"],
  ["api_key", "AKIAQ3EXAMPLE7KEYZ4X", "an API key"],
  ["api_key", "xoxb-2048-4096-Fak3Sl4ckT0k3n", "an API key"],
  ["password", "password: Tr0mp3ta!", "a password"],
  ["password", "la contraseña es Pingu1no2026", "a password"],
  ["password", "clave: Ab12cd!x", "a password"],
  ["bearer_token", "Authorization: Bearer Zm9vYmFyYmF6cXV4LmZha2U", "a bearer token"],
  ["jwt", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ0ZXN0LXVzZXIifQ.c2lnbmF0dXJlLWZha2UtZm9yLXRlc3Q", "a JWT"],
  ["private_key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----", "a private key"],
  ["card_number", "4111 1111 1111 1111", "a card number"],
  ["card_number", "5500-0000-0000-0004", "a card number"],
  ["random_token", "Zx9Qw3Er7Ty1Ui5Op8As2Df6Gh4Jk0LmNb", "a long random token"]
]

describe("Secrets", () => {
  it("finds each kind and leaves ordinary sales notes alone", () => {
    for (const [kind, secret] of SECRETS) assert.strictEqual(secretIn(`Nota: ${secret} (del cliente)`), kind, secret)
    for (
      const text of [
        "La clave es escuchar al cliente antes de cotizar.",
        "Clave: preguntar por el presupuesto.",
        "Nunca compartas la contraseña con clientes.",
        "RUT 76.123.456-7, teléfono +56 9 1234 5678, folio 2026-000123",
        "propuesta-comercial-2026-clientes-grandes",
        "commit 3f786850e387550fdab836ed7e6dc881de23001b",
        "4111 1111 1111 1112"
      ]
    ) {
      assert.isUndefined(secretIn(text), text)
    }
  })
})

describe("Patterns", () => {
  it("compile into text and known variables, and render", () => {
    const compiled = compilePattern("Reunión {{empresa}} / {{ nombre }} – {{fecha}}")
    assert.isTrue(Either.isRight(compiled))
    if (Either.isLeft(compiled)) return
    assert.deepStrictEqual(compiled.right.variables, ["empresa", "nombre", "fecha"])
    assert.strictEqual(renderPattern(compiled.right, { empresa: "Acme", nombre: "Ana" }), "Reunión Acme / Ana – {{fecha}}")
  })

  it("refuse what does not compile, saying why", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["Sin variables", "has no {{variable}}"],
      ["Hola {{empresaa}}", "not a known variable"],
      ["Hola {{empresa", "not closed"],
      ["Hola {{}}", "empty placeholder"],
      ["Hola {{Empresa X}}", "not a lower-case word"],
      ["{{nombre}}{{apellido}}", "side by side"],
      ["Hola {empresa}", "brace outside"],
      ["Hola {{nombre}}\nChao", "one line"],
      ["", "must not be empty"],
      [`${"x".repeat(200)} {{nombre}}`, "at most 200"]
    ]
    for (const [pattern, problem] of cases) {
      const compiled = compilePattern(pattern)
      assert.isTrue(Either.isLeft(compiled), pattern)
      if (Either.isLeft(compiled)) assert.include(compiled.left, problem, pattern)
    }
  })
})

layer(ServicesTest)("Cerebro write rules", (it) => {
  it.effect("the area is required and must be a known one", () =>
    Effect.gen(function* () {
      const { principal } = yield* issuePrincipal("free")
      const { area: _area, ...withoutArea } = valid
      refusedAt(yield* failure(principal, "context_create", withoutArea), "input.area")
      const unknown = refusedAt(yield* failure(principal, "context_create", { ...valid, area: "ventas" }), "input.area")
      assert.include(unknown, "clientes")
    }))

  it.effect("title and body must be non-empty and bounded; tags bounded and lower-case", () =>
    Effect.gen(function* () {
      const { principal } = yield* issuePrincipal("free")
      assert.include(refusedAt(yield* failure(principal, "context_create", { ...valid, title: "   " }), "input.title"), "not be empty")
      refusedAt(yield* failure(principal, "context_create", { ...valid, title: "t".repeat(121) }), "input.title")
      assert.include(refusedAt(yield* failure(principal, "context_create", { ...valid, body: "\n " }), "input.body"), "not be empty")
      assert.include(refusedAt(yield* failure(principal, "context_create", { ...valid, body: "b".repeat(8001) }), "input.body"), "8,000")
      refusedAt(yield* failure(principal, "context_create", { ...valid, tags: ["Retail"] }), "input.tags.0")
      refusedAt(
        yield* failure(principal, "context_create", { ...valid, tags: Array.from({ length: 11 }, (_, i) => `t${i}`) }),
        "input.tags"
      )
      const updateEmpty = yield* failure(principal, "context_update", { id: "tp_x1", version: 1, title: "" })
      refusedAt(updateEmpty, "input.title")
    }))

  it.effect("a pattern must compile, on create and on update", () =>
    Effect.gen(function* () {
      const { principal } = yield* issuePrincipal("free")
      const unknown = refusedAt(yield* failure(principal, "context_create", { ...valid, pattern: "Hola {{rut}}" }), "input.pattern")
      assert.include(unknown, "{{rut}}, which is not a known variable")
      refusedAt(yield* failure(principal, "context_create", { ...valid, pattern: "Asunto fijo" }), "input.pattern")
      const topic = yield* create(principal, { title: "Asuntos" })
      refusedAt(yield* failure(principal, "context_update", { id: topic.id, version: 1, pattern: "{{nombre" }), "input.pattern")
      assert.strictEqual(topicOf(yield* call(principal, "context_get", { id: topic.id })).version, 1)
    }))

  it.effect("every kind of secret is refused in any field, named by kind, never echoed, and nothing is written", () =>
    Effect.gen(function* () {
      const { principal } = yield* issuePrincipal("free")
      for (const [, secret, label] of SECRETS) {
        const error = yield* failure(principal, "context_create", { ...valid, title: `Nota ${label}`, body: `Acceso: ${secret}` })
        const message = refusedAt(error, "input.body")
        assert.include(message, label)
        assert.notInclude(JSON.stringify(error), secret.slice(0, 12), label)
      }
      const inTitle = yield* failure(principal, "context_create", { ...valid, title: "Token sk-proj-Q7fZr2LmXw9KcVb4TnYp" })
      assert.include(refusedAt(inTitle, "input.title"), "an API key")
      const inTag = yield* failure(principal, "context_create", { ...valid, tags: ["ok", "ghp_r4nd0ml00k1ngt0k3nf0rt3st1ngxyz12"] })
      refusedAt(inTag, "input.tags.1")

      const topic = yield* create(principal, { title: "Accesos al CRM", body: "Pedir acceso a operaciones." })
      const update = yield* failure(principal, "context_update", { id: topic.id, version: 1, body: "password: Tr0mp3ta!" })
      assert.include(refusedAt(update, "input.body"), "a password")
      assert.notInclude(JSON.stringify(update), "Tr0mp3ta")
      const stored = topicOf(yield* call(principal, "context_get", { id: topic.id }))
      assert.deepStrictEqual([stored.version, stored.body], [1, "Pedir acceso a operaciones."])
      const found = yield* call(principal, "context_retrieve", { query: "Nota" })
      assert.strictEqual((found.data as { readonly total: number }).total, 0)
    }))

  it.effect("a number that passes Luhn is refused as a card; one that does not is kept", () =>
    Effect.gen(function* () {
      const { principal } = yield* issuePrincipal("free")
      const card = yield* failure(principal, "context_create", { ...valid, body: "Pagó con 4111-1111-1111-1111." })
      assert.include(refusedAt(card, "input.body"), "a card number")
      assert.notInclude(JSON.stringify(card), "4111")
      const kept = yield* create(principal, { title: "Orden de compra", body: "OC 4111-1111-1111-1112 aprobada." })
      assert.strictEqual(kept.body, "OC 4111-1111-1111-1112 aprobada.")
    }))
})
