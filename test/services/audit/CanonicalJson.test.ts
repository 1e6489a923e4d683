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

  it("plain data written natively: keys one object lacks stay out of it, whatever its prototype holds", () => {
    class Row {
      b = 1
      a = 2
    }
    const values: ReadonlyArray<unknown> = [
      [{ x: 1 }, { y: 2 }, {}],
      [{ "10": 1, "9": 2, a: 3 }, { b: 1, "1": 2 }],
      JSON.parse(`{"__proto__": {"a": 1}, "b": 2}`),
      [{ constructor: 1 }, { other: 2 }],
      [{ toString: "own" }, { valueOf: null }],
      [{ a: { toJSON: () => "called" } }, { a: 1 }],
      Object.assign(Object.create(null), { b: 1, a: { d: 2, c: 3 } }),
      [new Row(), { c: 3 }],
      { when: new Date(2), dates: [new Date(3), new Date(Number.NaN)] },
      [undefined, () => 1, { a: undefined, b: () => 2, c: 3 }]
    ]
    for (const value of values) assert.strictEqual(canonicalJson(value), iterative(value))
    assert.strictEqual(canonicalJson([{ x: 1 }, { y: 2 }]), `[{"x":1},{"y":2}]`)
    assert.strictEqual(canonicalJson([{ constructor: 1 }, { other: 2 }]), `[{"constructor":1},{"other":2}]`)
  })

  it("many small objects beside one wide one cost no lookup per key per object", () => {
    // A plain object that counts the lookups made on it: the native writer looks up every key of the
    // value in every object, so beside 5,000 keys it would look up 5,000 times.
    let lookups = 0
    const counted = (target: object) => new Proxy(target, { get: (t, key, receiver) => (lookups++, Reflect.get(t, key, receiver)) })
    const wide = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, i]))
    const small = Array.from({ length: 20 }, () => counted({ a: 1 }))
    const value = [...small, wide]
    const text = canonicalJson(value)
    assert.strictEqual(text, iterative([...Array.from({ length: 20 }, () => ({ a: 1 })), wide]))
    assert.isBelow(lookups, 20 * 10)
    // a value within the bound is written natively: its objects are looked up once per key of the value
    lookups = 0
    assert.strictEqual(canonicalJson([counted({ a: 1 }), { b: 2 }]), `[{"a":1},{"b":2}]`)
    assert.isAtLeast(lookups, 2)
  })

  it("keys that join to the same text are different shapes", () => {
    assert.strictEqual(canonicalJson({ a: 1, b: 2 }), `{"a":1,"b":2}`)
    assert.strictEqual(canonicalJson({ "a\",\"b": 3 }), `{"a\\",\\"b":3}`)
    assert.strictEqual(canonicalJson({ a: 1, b: 2 }), `{"a":1,"b":2}`)
  })
})
