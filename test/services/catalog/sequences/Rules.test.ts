import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { SequenceDefinition } from "../../../../schema/catalog/Sequences.ts"
import type { RuleId } from "../../../../schema/catalog/SequenceTools.ts"
import type { MailboxRow } from "../../../../services/catalog/sequences/Mailboxes.ts"
import { checkSequence, type PreflightSubject } from "../../../../services/catalog/sequences/Rules.ts"
import type { RecipientRow } from "../../../../services/catalog/sequences/SequenceStore.ts"
import { goodDefinition } from "./Fixtures.ts"

const mailbox: MailboxRow = {
  id: "mb_1",
  workspaceId: "ws_1",
  email: "ventas@acme.example",
  displayName: "Ventas Acme",
  grantId: "grant_1",
  spf: true,
  dkim: true,
  dmarc: true,
  dailyCap: 400,
  minSpacingSeconds: 30,
  createdAt: new Date(0)
}

const person = (n: number, country: "CL" | "MX", over: Partial<RecipientRow> = {}): RecipientRow => ({
  position: n,
  personId: `pe_${n}`,
  email: `p${n}@cliente.example`,
  country,
  fields: {
    first_name: `Nombre${n}`,
    last_name: "Pérez",
    full_name: `Nombre${n} Pérez`,
    company: "Cliente",
    region: "Metropolitana",
    title: "Gerente"
  },
  source: "list:li_1",
  lawfulBasis: "legitimate_interest",
  suppressedReason: null,
  ...over
})

const good: PreflightSubject = {
  sequenceId: "sq_1",
  unsubscribe: (sequenceId, personId) => `https://brein.acme.test/u/${sequenceId}/${personId}/0123456789abcdef0123456789abcdef`,
  definition: goodDefinition("mb_1"),
  mailbox,
  recipients: [person(1, "CL"), person(2, "MX"), person(3, "CL")]
}

type Edit = (d: typeof good.definition) => unknown
const withDefinition = (edit: Edit): PreflightSubject => ({
  ...good,
  definition: Schema.decodeUnknownSync(SequenceDefinition)(edit(Schema.encodeSync(SequenceDefinition)(good.definition) as never))
})
const withSettings = (settings: Record<string, unknown>) => withDefinition((d) => ({ ...d, settings: { ...d.settings, ...settings } }))
const withStep = (index: number, step: Record<string, unknown>) =>
  withDefinition((d) => ({ ...d, steps: d.steps.map((s, i) => (i === index ? { ...s, ...step } : s)) }))

const withoutSetting = (key: string) =>
  withDefinition((d) => ({ ...d, settings: Object.fromEntries(Object.entries(d.settings).filter(([k]) => k !== key)) }))

const rulesOf = (subject: PreflightSubject) => {
  const found = checkSequence(subject)
  return { blocks: new Set(found.blockers.map((f) => f.rule)), warns: new Set(found.warnings.map((f) => f.rule)), found }
}
const blocks = (subject: PreflightSubject, rule: RuleId) => {
  const { blocks, found } = rulesOf(subject)
  assert.isTrue(blocks.has(rule), `${rule} should block: ${JSON.stringify(found)}`)
  for (const f of found.blockers.filter((f) => f.rule === rule)) assert.isAbove(f.message.length, 10)
  return found.blockers.filter((f) => f.rule === rule)
}
const warns = (subject: PreflightSubject, rule: RuleId) => {
  const { warns, blocks, found } = rulesOf(subject)
  assert.isTrue(warns.has(rule), `${rule} should warn: ${JSON.stringify(found)}`)
  assert.isFalse(blocks.has(rule), `${rule} should only warn`)
  return found.warnings.filter((f) => f.rule === rule)
}

describe("preflight rules", () => {
  it("a compliant sequence passes all ten rules with no finding", () => {
    const found = checkSequence(good)
    assert.deepStrictEqual(found, { blockers: [], warnings: [] })
  })

  it("1 sender_identity: blocks without SPF or DKIM or a mailbox of the workspace, warns without DMARC", () => {
    blocks({ ...good, mailbox: { ...mailbox, spf: false } }, "sender_identity")
    blocks({ ...good, mailbox: { ...mailbox, dkim: false } }, "sender_identity")
    blocks({ ...good, mailbox: undefined }, "sender_identity")
    warns({ ...good, mailbox: { ...mailbox, dmarc: false } }, "sender_identity")
  })

  it("2 physical_address: blocks without a postal address, warns without a street number", () => {
    blocks(withoutSetting("physical_address"), "physical_address")
    warns(withSettings({ physical_address: "Las Condes, Santiago" }), "physical_address")
  })

  it("3 unsubscribe: blocks a step or variant without {{unsubscribe}}, naming it", () => {
    const found = blocks(
      withStep(1, { variants: [{ id: "b", subject: "Otra idea", body: "Sin enlace de baja" }] }),
      "unsubscribe"
    )
    assert.deepStrictEqual(found.map((f) => [f.step_id, f.variant]), [["s2", "b"]])
  })

  it("4 regional_notice: Mexico needs the privacy notice, Chile the sender identity and opt-out wording", () => {
    const noPrivacy = withoutSetting("privacy_notice_url")
    assert.strictEqual(blocks(noPrivacy, "regional_notice")[0]?.count, 1)
    assert.isFalse(rulesOf({ ...noPrivacy, recipients: [person(1, "CL")] }).blocks.has("regional_notice"))
    blocks(withoutSetting("sender_identity"), "regional_notice")
    blocks(withSettings({ unsubscribe_text: "Enlace:" }), "regional_notice")
    assert.isFalse(
      rulesOf({ ...withSettings({ unsubscribe_text: "Enlace:" }), recipients: [person(2, "MX")] }).blocks.has("regional_notice")
    )
  })

  it("5 suppression: warns with counts per reason and for missing emails, blocks when no one can be written to", () => {
    const some = {
      ...good,
      recipients: [
        person(1, "CL"),
        person(2, "CL", { suppressedReason: "bounced" }),
        person(3, "CL", { suppressedReason: "bounced" }),
        person(4, "CL", { email: null })
      ]
    }
    const found = warns(some, "suppression")
    assert.deepStrictEqual(found.map((f) => f.count), [2, 1])
    assert.include(found[0]?.message ?? "", "bounced")
    blocks(
      { ...good, recipients: [person(1, "CL", { suppressedReason: "unsubscribed" }), person(2, "CL", { email: null })] },
      "suppression"
    )
    blocks({ ...good, recipients: [] }, "suppression")
  })

  it("6 subject_honesty: blocks RE:/FWD: on the first touch and capital subjects; RE: later is a reply", () => {
    assert.deepStrictEqual(blocks(withStep(0, { subject: "RE: nuestra reunión" }), "subject_honesty").map((f) => f.step_id), ["s1"])
    blocks(withStep(0, { subject: "Fwd: propuesta" }), "subject_honesty")
    blocks(withStep(1, { subject: "OFERTA PARA {{company}}" }), "subject_honesty")
    assert.isFalse(rulesOf(withStep(1, { subject: "Re: {{company}}" })).blocks.has("subject_honesty"))
  })

  it("6 subject_honesty: a spintax option cannot smuggle RE: in, and a subject is one line", () => {
    blocks(withStep(0, { subject: "{Hola|Re:} {{first_name}}" }), "subject_honesty")
    blocks(withStep(0, { subject: "{Buen día|{Hola|RE:}} {{first_name}}" }), "subject_honesty")
    assert.isFalse(rulesOf(withStep(0, { subject: "{Hola|Buen día} {{first_name|amigo}}" })).blocks.has("subject_honesty"))
    const broken = blocks(withStep(1, { subject: "Hola {{first_name}}\r\nBcc: otro@example.com" }), "subject_honesty")
    assert.include(broken.map((f) => f.message).join(" "), "the subject must be one line")
  })

  it("7 spam_words: warns on spam phrases, $$$, !!! and too many links; blocks URL shorteners", () => {
    warns(withStep(0, { subject: "Prueba gratis para {{company}}" }), "spam_words")
    warns(withStep(0, { body: "Gana dinero $$$ !!!\n{{unsubscribe}}" }), "spam_words")
    warns(withStep(0, { body: "https://a.example https://b.example https://c.example https://d.example {{unsubscribe}}" }), "spam_words")
    blocks(withStep(1, { body: "Mira https://bit.ly/abc {{unsubscribe}}" }), "spam_words")
    assert.isFalse(rulesOf(withStep(0, { subject: "Freelance {{company}}" })).warns.has("spam_words"))
  })

  it("8 volume: blocks a cap above the mailbox's, spacing under 30 s, a window outside business hours", () => {
    blocks(withSettings({ daily_cap: 500 }), "volume")
    blocks({ ...withSettings({ daily_cap: 701 }), mailbox: { ...mailbox, dailyCap: 700 } }, "volume")
    blocks(withSettings({ spacing_seconds: 10 }), "volume")
    blocks(withSettings({ window: { start_hour: 5, end_hour: 23, timezone: "America/Mexico_City" } }), "volume")
    blocks(withSettings({ window: { start_hour: 18, end_hour: 9, timezone: "America/Santiago" } }), "volume")
    warns(withSettings({ window: { start_hour: 9, end_hour: 18, timezone: "America/Santiago", days: ["mon", "sat"] } }), "volume")
  })

  it("9 personalization: blocks unknown variables and values a recipient lacks without a fallback", () => {
    assert.deepStrictEqual(blocks(withStep(0, { body: "Hola {{frist_name}} {{unsubscribe}}" }), "personalization").map((f) => f.step_id), [
      "s1"
    ])
    const lacking = { ...good, recipients: [person(1, "CL", { fields: { company: "Cliente", region: "Metropolitana" } })] }
    const found = blocks(lacking, "personalization")
    assert.strictEqual(found[0]?.recipient_id, "pe_1")
    assert.include(found[0]?.message ?? "", "first_name")
  })

  it("10 data_basis: blocks a sendable recipient without a lawful basis", () => {
    const found = blocks({ ...good, recipients: [person(1, "CL"), person(2, "CL", { lawfulBasis: null })] }, "data_basis")
    assert.deepStrictEqual(found.map((f) => f.recipient_id), ["pe_2"])
  })

  it("caps the findings of a rule and counts the rest", () => {
    const many = { ...good, recipients: Array.from({ length: 30 }, (_, i) => person(i + 1, "CL", { lawfulBasis: null })) }
    const found = blocks(many, "data_basis")
    assert.strictEqual(found.length, 21)
    assert.strictEqual(found[20]?.count, 10)
  })
})
