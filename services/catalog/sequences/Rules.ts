import {
  MERGE_FIELDS,
  PROVIDER_DAILY_CAP,
  PROVIDER_MIN_SPACING,
  type SequenceDefinition,
  type SuppressionReason
} from "../../../schema/catalog/Sequences.ts"
import type { Finding, RuleId } from "../../../schema/catalog/SequenceTools.ts"
import { hasControlCharacter } from "../../../schema/OneLine.ts"
import type { MailboxRow } from "./Mailboxes.ts"
import { renderMessage, SPIN, VARIABLE, variantsOf } from "./Render.ts"
import type { RecipientRow } from "./SequenceStore.ts"
import type { UnsubscribeWriter } from "./UnsubscribeLinks.ts"

export const RULESET_VERSION = "2026-12.1"

export interface PreflightSubject {
  readonly sequenceId: string
  /** Writes the recipients' unsubscribe links, as the messages carry them. */
  readonly unsubscribe: UnsubscribeWriter
  readonly definition: SequenceDefinition
  readonly mailbox: MailboxRow | undefined
  readonly recipients: ReadonlyArray<RecipientRow>
}

export interface Findings {
  readonly blockers: ReadonlyArray<Finding>
  readonly warnings: ReadonlyArray<Finding>
}

type Check = (subject: PreflightSubject, out: Out) => void

interface Out {
  readonly block: (rule: RuleId, message: string, at?: Omit<Finding, "rule" | "message">) => void
  readonly warn: (rule: RuleId, message: string, at?: Omit<Finding, "rule" | "message">) => void
}

/** Findings of one kind beyond this many per rule are counted in one last finding. */
const MAX_PER_RULE = 20

export const SPAM_PHRASES = [
  "gratis",
  "free",
  "100% garantizado",
  "100% guaranteed",
  "urgente",
  "act now",
  "actúa ahora",
  "gana dinero",
  "make money",
  "sin costo",
  "oferta exclusiva",
  "exclusive offer",
  "haz clic aquí",
  "click here",
  "$$$",
  "!!!"
]
export const SHORTENERS = ["bit.ly", "tinyurl.com", "t.co", "goo.gl", "ow.ly", "is.gd", "buff.ly", "cutt.ly", "rebrand.ly", "shorturl.at"]
const MAX_LINKS = 3
const OPT_OUT_WORDING = /(baja|desuscrib|no (deseas|quieres) recibir|dejar de recibir|unsubscribe|opt[- ]?out)/i
const DECEPTIVE_PREFIX = /^\s*(re|fw|fwd|rv|tr)\s*:/i
const BUSINESS_START = 7
const BUSINESS_END = 21

export const sendable = (r: RecipientRow) => r.email !== null && r.suppressedReason === null

const senderIdentity: Check = ({ mailbox }, out) => {
  if (mailbox === undefined) {
    out.block("sender_identity", "the sender mailbox is not one of this workspace's: pick one from brein mailboxes list (sequence_update)")
    return
  }
  if (!mailbox.spf) out.block("sender_identity", `${mailbox.email}: SPF is not set up for its domain; publish the SPF record and re-check`)
  if (!mailbox.dkim) out.block("sender_identity", `${mailbox.email}: DKIM is not set up for its domain; publish the DKIM key and re-check`)
  if (!mailbox.dmarc) {
    out.warn("sender_identity", `${mailbox.email}: no DMARC policy; publish one (p=none at least) before sending in volume`)
  }
}

const physicalAddress: Check = ({ definition }, out) => {
  const address = definition.settings.physical_address ?? ""
  if (address === "") {
    out.block("physical_address", "no postal address: set settings.physical_address; it is shown in every step's footer")
  } else if (!/\d/.test(address)) {
    out.warn("physical_address", `"${address}" has no street number: give a full postal address`)
  }
}

const unsubscribe: Check = ({ definition }, out) => {
  for (const step of definition.steps) {
    for (const variant of variantsOf(step)) {
      if (!/\{\{\s*unsubscribe\s*(\|[^}]*)?\}\}/.test(variant.body)) {
        out.block("unsubscribe", "the body has no {{unsubscribe}}: add it (it becomes the unsubscribe text and link)", {
          step_id: step.id,
          variant: variant.id
        })
      }
    }
  }
}

const regionalNotice: Check = ({ definition, recipients }, out) => {
  const writing = recipients.filter(sendable)
  const mx = writing.filter((r) => r.country === "MX").length
  const cl = writing.filter((r) => r.country === "CL").length
  const settings = definition.settings
  if (mx > 0 && settings.privacy_notice_url === undefined) {
    out.block("regional_notice", "recipients in Mexico need an aviso de privacidad: set settings.privacy_notice_url (LFPDPPP)", {
      count: mx
    })
  }
  if (cl > 0 && settings.sender_identity === undefined) {
    out.block("regional_notice", "recipients in Chile need the sender's identity: set settings.sender_identity (Ley 19.496 art. 28 B)", {
      count: cl
    })
  }
  if (cl > 0 && !OPT_OUT_WORDING.test(settings.unsubscribe_text)) {
    out.block("regional_notice", "recipients in Chile need clear opt-out wording: say how to stop receiving in settings.unsubscribe_text", {
      count: cl
    })
  }
}

const suppression: Check = ({ recipients }, out) => {
  const byReason = new Map<SuppressionReason, number>()
  for (const r of recipients) if (r.suppressedReason !== null) byReason.set(r.suppressedReason, (byReason.get(r.suppressedReason) ?? 0) + 1)
  for (const [reason, count] of byReason) {
    out.warn("suppression", `${count} recipient(s) suppressed (${reason}): they will not be written to`, { count })
  }
  const noEmail = recipients.filter((r) => r.email === null).length
  if (noEmail > 0) {
    out.warn(
      "suppression",
      `${noEmail} recipient(s) without an email to write to (not revealed, or none on file): they are skipped; people_reveal reveals the ones not revealed yet`,
      {
        count: noEmail
      }
    )
  }
  if (!recipients.some(sendable)) {
    out.block("suppression", "no recipient can be written to: set recipients with revealed, unsuppressed emails (sequence_recipients_set)")
  }
}

const letters = (text: string) => text.replace(/\{\{[^}]*\}\}/g, "").replace(/[^\p{L}]/gu, "")

const MAX_SPUN = 256

/** The texts a template's spintax can come to (merge fields as a placeholder), innermost group first, as Render picks; at most MAX_SPUN. */
const spun = (template: string): ReadonlyArray<string> => {
  let texts = [template.replace(VARIABLE, "x")]
  for (let round = 0; round < 32; round++) {
    let expanded = false
    texts = texts.flatMap((text) => {
      const spin = SPIN.exec(text)
      if (spin === null) return [text]
      expanded = true
      const [before, after] = [text.slice(0, spin.index), text.slice(spin.index + spin[0].length)]
      return (spin[1] ?? "").split("|").map((option) => before + option + after)
    }).slice(0, MAX_SPUN)
    if (!expanded) break
  }
  return texts
}

const subjectHonesty: Check = ({ definition }, out) => {
  definition.steps.forEach((step, index) => {
    for (const variant of variantsOf(step)) {
      const at = { step_id: step.id, variant: variant.id }
      if (hasControlCharacter(variant.subject)) {
        out.block("subject_honesty", "the subject must be one line: remove its line breaks and control characters", at)
      }
      if (index === 0 && spun(variant.subject).some((subject) => DECEPTIVE_PREFIX.test(subject))) {
        out.block("subject_honesty", "a first touch must not pretend to be a reply or forward: drop the RE:/FWD: prefix", at)
      }
      const caps = letters(variant.subject)
      if (caps.length >= 4 && caps === caps.toUpperCase() && caps !== caps.toLowerCase()) {
        out.block("subject_honesty", "the subject is in capitals: write it in sentence case", at)
      }
      if (index === 0 && variant.subject.trim() === "") {
        out.block("subject_honesty", "the first step needs a subject", at)
      }
    }
  })
}

const spamWords: Check = ({ definition }, out) => {
  for (const step of definition.steps) {
    for (const variant of variantsOf(step)) {
      const at = { step_id: step.id, variant: variant.id }
      const text = `${variant.subject}\n${variant.body}`.toLowerCase()
      const hits = SPAM_PHRASES.filter((
        p
      ) => (/^[\p{L} ]+$/u.test(p) ? new RegExp(`(^|[^\\p{L}])${p}([^\\p{L}]|$)`, "u").test(text) : text.includes(p)))
      if (hits.length > 0) out.warn("spam_words", `spam filters flag ${hits.map((h) => `"${h}"`).join(", ")}: rephrase`, at)
      const links = [...text.matchAll(/https?:\/\/([^\s/<>"')]+)[^\s<>"')]*/g)]
      const shortened = links.filter((m) => SHORTENERS.includes((m[1] ?? "").replace(/^www\./, "")))
      if (shortened.length > 0) {
        out.block(
          "spam_words",
          `URL shorteners hide where a link goes and get mail blocked: use the full link instead of ${shortened[0]?.[0]}`,
          at
        )
      }
      if (links.length > MAX_LINKS) out.warn("spam_words", `${links.length} links: keep at most ${MAX_LINKS} per message`, at)
    }
  }
}

const volume: Check = ({ definition, mailbox }, out) => {
  const { daily_cap, spacing_seconds, window } = definition.settings
  const cap = Math.min(mailbox?.dailyCap ?? PROVIDER_DAILY_CAP, PROVIDER_DAILY_CAP)
  if (daily_cap > cap) out.block("volume", `daily_cap ${daily_cap} is above the mailbox's cap of ${cap} a day: lower it`)
  const spacing = Math.max(mailbox?.minSpacingSeconds ?? PROVIDER_MIN_SPACING, PROVIDER_MIN_SPACING)
  if (spacing_seconds < spacing) out.block("volume", `spacing_seconds ${spacing_seconds} is below ${spacing} s between sends: raise it`)
  if (window.start_hour >= window.end_hour) {
    out.block("volume", `the sending window ${window.start_hour}–${window.end_hour} h is empty: start_hour must be before end_hour`)
  } else if (window.start_hour < BUSINESS_START || window.end_hour > BUSINESS_END) {
    out.block(
      "volume",
      `the sending window ${window.start_hour}–${window.end_hour} h (${window.timezone}) is outside business hours: keep it within ${BUSINESS_START}–${BUSINESS_END} h`
    )
  }
  if (window.days.some((d) => d === "sat" || d === "sun")) {
    out.warn("volume", "the window includes weekend days: B2B mail is read on weekdays")
  }
}

const FULL = Object.fromEntries(MERGE_FIELDS.map((f) => [f, "x"]))

const personalization: Check = ({ definition, recipients, sequenceId, unsubscribe }, out) => {
  const { settings } = definition
  for (const step of definition.steps) {
    for (const variant of variantsOf(step)) {
      const probe = renderMessage({
        sequenceId,
        step: { ...step, subject: variant.subject, body: variant.body, variants: [] },
        recipient: { id: "probe", fields: FULL },
        settings,
        unsubscribe
      })
      for (const token of probe.unresolved) {
        out.block("personalization", `${token} is not a variable: use one of ${MERGE_FIELDS.join(", ")} or {{unsubscribe}}`, {
          step_id: step.id,
          variant: variant.id
        })
      }
    }
    for (const r of recipients.filter(sendable)) {
      const m = renderMessage({ sequenceId, step, recipient: { id: r.personId, fields: r.fields }, settings, unsubscribe })
      if (m.missing.length > 0) {
        out.block("personalization", `no value for ${m.missing.join(", ")}: add a fallback ({{${m.missing[0]}|…}}) or drop the recipient`, {
          step_id: step.id,
          variant: m.variant,
          recipient_id: r.personId
        })
      }
    }
  }
}

const dataBasis: Check = ({ recipients }, out) => {
  const lacking = recipients.filter((r) => sendable(r) && (r.lawfulBasis === null || r.source.trim() === ""))
  for (const r of lacking) {
    out.block("data_basis", "no lawful basis recorded: set recipients again with lawful_basis (Ley 21.719 / LFPDPPP)", {
      recipient_id: r.personId
    })
  }
}

export const RULES: ReadonlyArray<readonly [RuleId, Check]> = [
  ["sender_identity", senderIdentity],
  ["physical_address", physicalAddress],
  ["unsubscribe", unsubscribe],
  ["regional_notice", regionalNotice],
  ["suppression", suppression],
  ["subject_honesty", subjectHonesty],
  ["spam_words", spamWords],
  ["volume", volume],
  ["personalization", personalization],
  ["data_basis", dataBasis]
]

const capped = (findings: Array<Finding>, into: Array<Finding>) => {
  const byRule = new Map<RuleId, Array<Finding>>()
  for (const f of findings) byRule.set(f.rule, [...(byRule.get(f.rule) ?? []), f])
  for (const [rule, list] of byRule) {
    into.push(...list.slice(0, MAX_PER_RULE))
    if (list.length > MAX_PER_RULE) {
      into.push({ rule, message: `and ${list.length - MAX_PER_RULE} more like these`, count: list.length - MAX_PER_RULE })
    }
  }
}

/** The ten rules of the preflight over a sequence's definition, mailbox and recipients. Pure. */
export const checkSequence = (subject: PreflightSubject): Findings => {
  const blockers: Array<Finding> = []
  const warnings: Array<Finding> = []
  const out: Out = {
    block: (rule, message, at = {}) => blockers.push({ rule, message, ...at }),
    warn: (rule, message, at = {}) => warnings.push({ rule, message, ...at })
  }
  for (const [, check] of RULES) check(subject, out)
  const b: Array<Finding> = []
  const w: Array<Finding> = []
  capped(blockers, b)
  capped(warnings, w)
  return { blockers: b, warnings: w }
}
