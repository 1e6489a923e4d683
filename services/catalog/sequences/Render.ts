import type { Settings, Step, Variant } from "../../../schema/catalog/Sequences.ts"
import { MERGE_FIELDS } from "../../../schema/catalog/Sequences.ts"
import { sha256 } from "../../Crypto.ts"
import type { UnsubscribeWriter } from "./UnsubscribeLinks.ts"

export interface RenderRecipient {
  /** The person id: with the sequence and step it picks the variant and spintax options. */
  readonly id: string
  readonly fields: Readonly<Record<string, string>>
}

export interface RenderInput {
  readonly sequenceId: string
  readonly step: Step
  readonly recipient: RenderRecipient
  readonly settings: Pick<Settings, "unsubscribe_text" | "sender_identity" | "physical_address" | "privacy_notice_url">
  /** The recipient's unsubscribe link (UnsubscribeLinks), where `{{unsubscribe}}` is written. */
  readonly unsubscribe: UnsubscribeWriter
}

export interface RenderedMessage {
  readonly variant: string
  readonly subject: string
  readonly body: string
  /** Merge fields this recipient has no value for, used without a fallback (rendered empty). */
  readonly missing: ReadonlyArray<string>
  /** Tokens left as written: unknown variables, malformed `{{…}}`, a stray `{{` or `}}`. */
  readonly unresolved: ReadonlyArray<string>
  /** The http(s) links of subject and body, in order. */
  readonly links: ReadonlyArray<string>
}

const KNOWN: ReadonlySet<string> = new Set<string>([...MERGE_FIELDS, "unsubscribe"])
/** A merge field, `{{name}}` or `{{name|fallback}}`. */
export const VARIABLE = /\{\{([^{}]*)\}\}/g
/** A spintax group without another inside: `{Hola|Buen día}`. */
export const SPIN = /\{([^{}]*\|[^{}]*)\}/
const SENTINEL = /\u0000(\d+)\u0000/g
const STRAY = /\{\{[^}]{0,40}|\}\}/g
const LINK = /https?:\/\/[^\s<>"')\]]+/g
const MAX_SPINS = 200

/** A stable choice among `n` for these parts: the same sequence, step and recipient always choose the same. */
export const choose = (n: number, ...parts: ReadonlyArray<string>): number =>
  n <= 1 ? 0 : Number.parseInt(sha256(parts.join("\u0000")).slice(0, 12), 16) % n

/** The step's variants: its own subject and body as variant a, then the others. */
export const variantsOf = (step: Step): ReadonlyArray<Variant> => [
  { id: "a", subject: step.subject, body: step.body },
  ...(step.variants ?? [])
]

interface Found {
  readonly missing: Set<string>
  readonly unresolved: Set<string>
}

const fill = (template: string, input: RenderInput, part: string, found: Found): string => {
  const values: Array<string> = []
  const protectedText = template.replace(VARIABLE, (token, inner: string) => {
    const bar = inner.indexOf("|")
    const name = (bar < 0 ? inner : inner.slice(0, bar)).trim()
    const fallback = bar < 0 ? undefined : inner.slice(bar + 1)
    if (!KNOWN.has(name)) {
      found.unresolved.add(token)
      values.push(token)
    } else if (name === "unsubscribe") {
      values.push(`${input.settings.unsubscribe_text} ${input.unsubscribe(input.sequenceId, input.recipient.id)}`)
    } else {
      const value = input.recipient.fields[name]?.trim() ?? ""
      if (value === "" && fallback === undefined) found.missing.add(name)
      values.push(value === "" ? fallback ?? "" : value)
    }
    return `\u0000${values.length - 1}\u0000`
  })
  let text = protectedText
  for (let k = 0; k < MAX_SPINS; k++) {
    const match = SPIN.exec(text)
    if (match === null) break
    const options = (match[1] ?? "").split("|")
    const picked = options[choose(options.length, input.sequenceId, input.step.id, input.recipient.id, part, String(k))] ?? ""
    text = text.slice(0, match.index) + picked + text.slice(match.index + match[0].length)
  }
  for (const stray of text.match(STRAY) ?? []) found.unresolved.add(stray)
  return text.replace(SENTINEL, (_, i: string) => values[Number(i)] ?? "")
}

const footerOf = (settings: RenderInput["settings"]) => {
  const lines = [
    settings.sender_identity,
    settings.physical_address,
    settings.privacy_notice_url === undefined ? undefined : `Aviso de privacidad: ${settings.privacy_notice_url}`
  ].filter((line): line is string => line !== undefined && line !== "")
  return lines.length === 0 ? "" : `\n\n--\n${lines.join("\n")}`
}

/**
 * One step's message for one recipient. Pure: the preview and the dispatcher call it with the same
 * arguments and get the same message (variant and spintax chosen by a hash of sequence, step and
 * recipient). The body ends with the footer of the settings (identity, address, privacy notice).
 */
export const renderMessage = (input: RenderInput): RenderedMessage => {
  const variants = variantsOf(input.step)
  const variant = variants[choose(variants.length, input.sequenceId, input.step.id, input.recipient.id, "variant")] ?? variants[0]
  const found: Found = { missing: new Set(), unresolved: new Set() }
  const subject = fill(variant?.subject ?? "", input, "subject", found).replace(/\s+/g, " ").trim()
  const body = fill(variant?.body ?? "", input, "body", found).trim() + footerOf(input.settings)
  return {
    variant: variant?.id ?? "a",
    subject,
    body,
    missing: [...found.missing],
    unresolved: [...found.unresolved],
    links: [...`${subject}\n${body}`.matchAll(LINK)].map((m) => m[0])
  }
}
