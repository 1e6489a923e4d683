import { assert, describe, it } from "@effect/vitest"
import { canonicalJson, digestOf } from "../../../services/audit/Chain.ts"

const nested = (depth: number) => {
  let value: unknown = "leaf"
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { k: value }
  return value
}

describe("canonical JSON", () => {
  it("sorts keys at every level and writes what JSON.stringify writes otherwise", () => {
    const value = { b: [1, undefined, "x", { d: null, c: new Date(0) }], a: { z: true, y: undefined, f: () => 1 }, e: [] }
    assert.strictEqual(canonicalJson(value), `{"a":{"z":true},"b":[1,null,"x",{"c":"1970-01-01T00:00:00.000Z","d":null}],"e":[]}`)
    assert.strictEqual(canonicalJson({}), "{}")
    assert.strictEqual(canonicalJson(undefined), "null")
  })

  it("digests a value nested 100,000 levels deep without overflowing the stack", () => {
    const deep = nested(100_000)
    const text = canonicalJson(deep)
    assert.isTrue(text.startsWith(`{"k":[{"k":[`))
    assert.strictEqual(text.length, 50_000 * `{"k":[`.length + `"leaf"`.length + 50_000 * `]}`.length)
    assert.match(digestOf(deep), /^[0-9a-f]{64}$/)
  })
})
