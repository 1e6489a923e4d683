import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { Step } from "../../../../schema/catalog/Sequences.ts"
import { renderMessage } from "../../../../services/catalog/sequences/Render.ts"

const step = Schema.decodeUnknownSync(Step)({
  id: "s1",
  delay: 0,
  delay_unit: "days",
  subject: "{Hola|Buen día} {{first_name|equipo}}",
  body: "Hola {{first_name}}, vi {{company}} en {{region}}. {{frist_name}} {{unsubscribe}}",
  variants: [{ id: "b", subject: "Una idea para {{company}}", body: "{{first_name|Hola}}: https://example.com/x {{unsubscribe}}" }]
})
const settings = { unsubscribe_text: "Darse de baja:", sender_identity: "Acme SpA", physical_address: "Av. Apoquindo 1, Santiago" }
const recipient = (id: string, fields: Record<string, string>) => ({ id, fields })
/** A writer of links as UnsubscribeLinks makes them (its token is a stand-in: rendering only places the link). */
const unsubscribe = (sequenceId: string, personId: string) =>
  `https://brein.acme.test/u/${sequenceId}/${personId}/0123456789abcdef0123456789abcdef`

describe("renderMessage", () => {
  it("renders the same message for the same sequence, step and recipient", () => {
    const input = { sequenceId: "sq_1", step, recipient: recipient("pe_1", { first_name: "Ana", company: "Acme" }), settings, unsubscribe }
    assert.deepStrictEqual(renderMessage(input), renderMessage(input))
  })

  it("spreads variants and spintax over recipients", () => {
    const picks = new Set<string>()
    for (let i = 0; i < 40; i++) {
      const m = renderMessage({
        sequenceId: "sq_1",
        step,
        recipient: recipient(`pe_${i}`, { first_name: "Ana", company: "Acme", region: "RM" }),
        settings,
        unsubscribe
      })
      picks.add(`${m.variant}:${m.subject.split(" ")[0]}`)
    }
    assert.isTrue(picks.has("b:Una"))
    assert.isTrue(picks.has("a:Hola"))
    assert.isTrue(picks.has("a:Buen"))
  })

  it("reports missing variables, unresolved tokens, links and adds the footer and unsubscribe link", () => {
    const only = Schema.decodeUnknownSync(Step)({ ...step, variants: [] })
    const m = renderMessage({ sequenceId: "sq_1", step: only, recipient: recipient("pe_9", { company: "Acme" }), settings, unsubscribe })
    assert.deepStrictEqual([...m.missing].sort(), ["first_name", "region"])
    assert.deepStrictEqual(m.unresolved, ["{{frist_name}}"])
    assert.isTrue(m.subject.endsWith("equipo"))
    assert.include(m.body, `Darse de baja: ${unsubscribe("sq_1", "pe_9")}`)
    assert.isTrue(m.body.endsWith("--\nAcme SpA\nAv. Apoquindo 1, Santiago"))
    assert.deepStrictEqual(m.links, [unsubscribe("sq_1", "pe_9")])
  })

  it("reports a stray {{ as unresolved", () => {
    const bad = Schema.decodeUnknownSync(Step)({ id: "s1", delay: 0, delay_unit: "days", subject: "Hola {{first_name", body: "x" })
    const m = renderMessage({ sequenceId: "sq_1", step: bad, recipient: recipient("pe_1", { first_name: "Ana" }), settings, unsubscribe })
    assert.deepStrictEqual(m.unresolved, ["{{first_name"])
  })
})
