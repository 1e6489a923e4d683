import { assert, describe, it } from "@effect/vitest"
import { canonicalJson, digestOf, iterative } from "../../../services/audit/Chain.ts"

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

describe("canonical JSON, the fast writer", () => {
  it("writes what the iterative writer writes, for answers of every shape", () => {
    const values: ReadonlyArray<unknown> = [
      { b: 1, a: [{ y: "2", x: -0 }, { x: 1.5e300, y: null }], "10": true, "9": false, "": "empty" },
      { "a\u0000b": 1 },
      { a: 1, b: 2 },
      [NaN, Infinity, -Infinity, 0.1, "é\u2028\"\\", new Date(1), { toJSON: () => "kept as an object" }],
      Array.from({ length: 50 }, (_, i) => ({ id: i, name: `row ${i}`, nested: { z: [i], a: i % 2 === 0 ? undefined : i } })),
      nested(300),
      Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${(i * 37) % 100}`, i])),
      "text",
      null
    ]
    for (const value of values) assert.strictEqual(canonicalJson(value), iterative(value))
  })

  it("keys that join to the same text are different shapes", () => {
    assert.strictEqual(canonicalJson({ a: 1, b: 2 }), `{"a":1,"b":2}`)
    assert.strictEqual(canonicalJson({ "a\",\"b": 3 }), `{"a\\",\\"b":3}`)
    assert.strictEqual(canonicalJson({ a: 1, b: 2 }), `{"a":1,"b":2}`)
  })
})
