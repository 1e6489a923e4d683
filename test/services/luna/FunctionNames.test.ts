import { assert, describe, it } from "@effect/vitest"
import { WIRE_FUNCTION_NAME } from "../../../schema/luna/ChatWire.ts"
import { functionNames, toolNamed } from "../../../services/luna/FunctionNames.ts"

const namesOf = (tools: ReadonlyArray<string>) => {
  const names = functionNames(tools)
  return tools.map(names.wireName)
}

const assertRoundTrip = (tools: ReadonlyArray<string>) => {
  const names = functionNames(tools)
  const wire = tools.map(names.wireName)
  for (const name of wire) assert.match(name, WIRE_FUNCTION_NAME)
  assert.strictEqual(new Set(wire).size, tools.length, `distinct names for ${tools.join(", ")}: ${wire.join(", ")}`)
  assert.deepStrictEqual(wire.map(names.toolOf), [...tools])
  return wire
}

describe("FunctionNames", () => {
  it("dots become __, snake_case ids stay as they are, and every name maps back", () => {
    const wire = assertRoundTrip(["sii.rcv.consultar", "core.timestamp.now", "companies_search", "sii.rcv.resumen.consultar"])
    assert.deepStrictEqual(wire, ["sii__rcv__consultar", "core__timestamp__now", "companies_search", "sii__rcv__resumen__consultar"])
  })

  it("ids that come out the same each get a stable suffix, whatever the order", () => {
    const wire = assertRoundTrip(["a.b", "a__b", "a:b"])
    for (const name of wire.slice(0, 2)) assert.match(name, /^a__b_[0-9a-f]{8}$/)
    assert.strictEqual(wire[2], "a_b")
    assert.deepStrictEqual(namesOf(["a:b", "a__b", "a.b"]), [...wire].reverse())
    assert.deepStrictEqual(functionNames(["a.b", "zeta.x"]).wireName("a.b"), "a__b", "without the clash, the plain name")
  })

  it("ids longer than 64 characters are cut with a suffix, and two sharing a long prefix stay apart", () => {
    const stem = "mercado." + "segmento_".repeat(8)
    const wire = assertRoundTrip([`${stem}uno`, `${stem}dos`, "x".repeat(64), "y".repeat(65)])
    for (const name of wire) assert.isAtMost(name.length, 64)
    assert.strictEqual(wire[2], "x".repeat(64))
    assert.notStrictEqual(wire[0], wire[1])
  })

  it("characters the providers refuse are replaced; an empty id still gets a valid name", () => {
    assertRoundTrip(["café.menú", "with space", "", "ñ"])
  })

  it("a name the request did not offer maps to unknown:<name>, never to a registry id", () => {
    const names = functionNames(["sii.rcv.consultar"], ["banco.cuentas.consultar"])
    assert.strictEqual(names.toolOf("gmail_read"), "unknown:gmail_read")
    assert.strictEqual(names.toolOf("sii.rcv.consultar"), "unknown:sii.rcv.consultar")
    assert.strictEqual(names.toolOf(""), "unknown:")
    // A tool only the history names keeps a name for the history, but is not callable in this step.
    assert.strictEqual(names.wireName("banco.cuentas.consultar"), "banco__cuentas__consultar")
    assert.strictEqual(names.toolOf("banco__cuentas__consultar"), "unknown:banco__cuentas__consultar")
  })

  it("the tool a refused call asked for is found by any name it is given, offered or not; a name no tool has is none", () => {
    const tools = ["sii.rcv.consultar", "companies_search", "a.b", "a__b", "mercado." + "segmento_".repeat(8) + "uno"]
    const wire = tools.map(functionNames(tools).wireName)
    assert.deepStrictEqual(wire.map((name) => toolNamed(tools, `unknown:${name}`)), tools)
    assert.deepStrictEqual(tools.map((tool) => toolNamed(tools, tool)), tools)
    assert.strictEqual(toolNamed(tools, "unknown:gmail_read"), undefined)
    assert.strictEqual(toolNamed(tools, "unknown:"), undefined)
  })

  it("a refused call in the history goes back under the name the model used", () => {
    const names = functionNames(["companies_search"], ["unknown:gmail_read", "unknown:no valid"])
    assert.strictEqual(names.wireName("unknown:gmail_read"), "gmail_read")
    assert.match(names.wireName("unknown:no valid"), WIRE_FUNCTION_NAME)
    assert.strictEqual(names.toolOf("gmail_read"), "unknown:gmail_read")
  })
})
