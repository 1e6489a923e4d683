import { Effect, Either } from "effect"
import { characters } from "../../schema/Length.ts"
import type { AnchorsReport } from "../../schema/luna/Anchors.ts"
import type { ModelMessage } from "../../schema/luna/Model.ts"
import type { AttemptMetrics } from "../../schema/luna/Outcome.ts"
import { stripRefTokens } from "./anchors/RefTokens.ts"
import { anchoredOnly, checkAnchors } from "./anchors/Validate.ts"
import type { ModelGatewayApi } from "./ModelGateway.ts"
import type { CitableResult } from "./TurnInput.ts"

export const LEFT_OUT = "(Dejé fuera cifras que no pude anclar a un resultado.)"
export const NOTHING_ANCHORED =
  "No pude anclar a un resultado las cifras de mi respuesta, así que no las digo. Pídeme que las consulte de nuevo."

/** A text Luna shows, as it closes, and what each attempt measured. */
export interface Narrated {
  readonly narration: string
  readonly partial: boolean
  readonly attempts: ReadonlyArray<AttemptMetrics>
  readonly models: ReadonlyArray<string>
}

/** Where a shown text was written: the conversation up to it, and what the repair prompt calls it. */
export interface Written {
  readonly context: ReadonlyArray<ModelMessage>
  /** The field of a control function the text is (detalle, summary…); none for the closing reply. */
  readonly field?: string
  /** The longest the text may be as shown (ref tokens stripped); none for the closing reply. */
  readonly maxLength?: number
}

const metricsOf = (attempt: number, report: AnchorsReport): AttemptMetrics => ({
  attempt,
  anchors: report.anchors.length,
  unresolved_refs: report.unresolved_refs.length,
  unanchored_figures: report.unanchored_figures.length,
  ok: report.ok
})

const findings = (report: AnchorsReport) =>
  [
    ...report.unresolved_refs.map((ref) => `- [[ref:${ref}]] no es el ref de ningún resultado.`),
    ...report.unanchored_figures.map((f) =>
      f.ref === undefined
        ? `- "${f.figure}" (en: "${f.sentence}") no lleva cita.`
        : `- "${f.figure}" (en: "${f.sentence}") no está en el resultado ${f.ref} ni es su suma, promedio o porcentaje.`
    )
  ].join("\n")

const RULE =
  "cada cifra con la [[ref:ID]] del resultado de donde sale, sin cifras calculadas que no estén en él. No quites lo que ya estaba anclado."

const repairPrompt = (report: AnchorsReport, written: Written) =>
  written.field === undefined
    ? `[validador de anclaje] Tu respuesta tiene cifras que no puedo anclar:\n${findings(report)}\nReescríbela entera: ${RULE}`
    : `[validador de anclaje] El texto "${written.field}" que escribiste tiene cifras que no puedo anclar:\n${findings(report)}\n` +
      `Responde solo con ese texto reescrito${
        written.maxLength === undefined ? "" : ` (a lo más ${written.maxLength} caracteres sin contar las [[ref:ID]])`
      }: ${RULE}`

/** The anchored part of an attempt: the sentences whose figures all anchor, and how many anchors it keeps. */
const anchoredPart = (text: string, results: ReadonlyArray<CitableResult>) => {
  const input = results.map((r) => ({ ref: r.ref, payload: r.payload }))
  const kept = anchoredOnly(text, input).narration
  return { narration: kept, anchors: checkAnchors({ narration: kept, results: input }).anchors.length }
}

/**
 * Checks a text Luna shows (the closing reply, a limit's detalle or redirect, a decision's summary); one
 * repair attempt when it does not anchor. A repair is taken only when it is valid, not empty, within the
 * text's length, and keeps at least as many anchors as the first attempt's valid part; otherwise the text
 * is the anchored part that keeps more, and says that figures were left out when that still fits.
 */
export const anchorShown = Effect.fn("Luna.anchorShown")(function* (
  gateway: ModelGatewayApi,
  written: Written,
  text: string,
  results: ReadonlyArray<CitableResult>
) {
  const input = results.map((r) => ({ ref: r.ref, payload: r.payload }))
  const first = checkAnchors({ narration: text, results: input })
  if (first.ok) return { narration: text, partial: false, attempts: [metricsOf(1, first)], models: [] } satisfies Narrated
  const repaired = yield* Effect.either(gateway.complete({
    messages: [...written.context, { role: "user", content: repairPrompt(first, written) }],
    functions: []
  }))
  const fits = (shown: string) => written.maxLength === undefined || characters(stripRefTokens(shown)) <= written.maxLength
  const closeWith = (kept: string) => {
    if (kept.trim() === "") return { narration: NOTHING_ANCHORED, partial: true }
    const said = `${kept.trim()} ${LEFT_OUT}`
    // the anchored part is a part of a text that fit; the sentence about what was left out may not
    return { narration: fits(said) ? said : kept.trim(), partial: true }
  }
  const keptFirst = anchoredPart(text, results)
  if (Either.isLeft(repaired)) {
    return { ...closeWith(keptFirst.narration), attempts: [metricsOf(1, first)], models: [] } satisfies Narrated
  }
  const second = repaired.right.content ?? ""
  const report = checkAnchors({ narration: second, results: input })
  const attempts = [metricsOf(1, first), metricsOf(2, report)]
  const models = [repaired.right.model]
  if (report.ok && second.trim() !== "" && fits(second) && report.anchors.length >= keptFirst.anchors) {
    return { narration: second, partial: false, attempts, models } satisfies Narrated
  }
  const keptSecond = anchoredPart(second, results)
  const best = keptSecond.anchors > keptFirst.anchors && fits(keptSecond.narration) ? keptSecond : keptFirst
  return { ...closeWith(best.narration), attempts, models } satisfies Narrated
})

const summed = (attempt: number, measured: ReadonlyArray<AttemptMetrics>): AttemptMetrics => ({
  attempt,
  anchors: measured.reduce((n, m) => n + m.anchors, 0),
  unresolved_refs: measured.reduce((n, m) => n + m.unresolved_refs, 0),
  unanchored_figures: measured.reduce((n, m) => n + m.unanchored_figures, 0),
  ok: measured.every((m) => m.ok)
})

/**
 * The attempts of texts shown together (a limit's detalle and its redirect), measured as one text: attempt
 * n sums what each text measured at n, or at its last attempt when it needed fewer.
 */
export const attemptsTogether = (shown: ReadonlyArray<Narrated>): ReadonlyArray<AttemptMetrics> => {
  const count = Math.max(0, ...shown.map((s) => s.attempts.length))
  return Array.from({ length: count }, (_, i) =>
    summed(
      i + 1,
      shown.flatMap((s) => {
        const at = s.attempts[Math.min(i, s.attempts.length - 1)]
        return at === undefined ? [] : [at]
      })
    ))
}
