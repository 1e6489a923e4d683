import { assert, describe, it } from "@effect/vitest"
import { ToolNotFound, UnsupportedMediaType } from "../../schema/Errors.ts"
import { characters } from "../../schema/Length.ts"

const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

describe("errors that quote what the caller sent", () => {
  it("ToolNotFound names a long id by its first 64 characters and counts it in characters", () => {
    const id = "🛠".repeat(70)
    const error = ToolNotFound.of(id)
    assert.strictEqual(error.toolId, `${"🛠".repeat(64)}…`)
    assert.notMatch(error.toolId, loneSurrogate)
    assert.include(error.message, "(70 characters; a tool id is at most")
    // an id of 64 characters is shown whole, even where its UTF-16 length is twice that
    const whole = ToolNotFound.of("🛠".repeat(64))
    assert.strictEqual(whole.toolId, "🛠".repeat(64))
    assert.strictEqual(whole.message, `no tool with id ${JSON.stringify("🛠".repeat(64))}`)
  })

  it("UnsupportedMediaType quotes a content type and a charset cut in characters", () => {
    const type = UnsupportedMediaType.of("🙂".repeat(150))
    assert.notMatch(type.message, loneSurrogate)
    assert.include(type.message, `not ${"🙂".repeat(100)}`)
    const charset = UnsupportedMediaType.charset("🙂".repeat(50))
    assert.notMatch(charset.message, loneSurrogate)
    assert.strictEqual(characters(charset.message.slice(charset.message.indexOf("\""))), 42)
  })
})
