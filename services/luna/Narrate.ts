import { Effect, Either } from "effect"
import type { AnchorsReport } from "../../schema/luna/Anchors.ts"
import type { ModelMessage } from "../../schema/luna/Model.ts"
import type { AttemptMetrics } from "../../schema/luna/Outcome.ts"
import { anchoredOnly, checkAnchors } from "./anchors/Validate.ts"
import type { ModelGatewayApi } from "./ModelGateway.ts"
import type { CitableResult } from "./TurnInput.ts"

export const LEFT_OUT = "(Dejé fuera cifras que no pude anclar a un resultado.)"
export const NOTHING_ANCHORED =
  "No pude anclar a un resultado las cifras de mi respuesta, así que no las digo. Pídeme que las consulte de nuevo."

/** The narration a turn closes with, and what each attempt measured. */
export interface Narrated {
  readonly narration: string
  readonly partial: boolean
  readonly attempts: ReadonlyArray<AttemptMetrics>
  readonly models: ReadonlyArray<string>
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

const repairPrompt = (report: AnchorsReport) =>
  `[validador de anclaje] Tu respuesta tiene cifras que no puedo anclar:\n${findings(report)}\n` +
  "Reescríbela entera: cada cifra con la [[ref:ID]] del resultado de donde sale, sin cifras calculadas que no estén en él. No quites lo que ya estaba anclado."

/** The anchored part of an attempt: the sentences whose figures all anchor, and how many anchors it keeps. */
const anchoredPart = (narration: string, results: ReadonlyArray<CitableResult>) => {
  const input = results.map((r) => ({ ref: r.ref, payload: r.payload }))
  const kept = anchoredOnly(narration, input).narration
  return { narration: kept, anchors: checkAnchors({ narration: kept, results: input }).anchors.length }
}

/**
 * Checks a closing narration; one repair attempt when it does not anchor. A repair is taken only when it
 * is valid and keeps at least as many anchors as the first attempt's valid part; otherwise the turn
 * closes with the anchored part that keeps more, and says that figures were left out.
 */
export const narrate = Effect.fn("Luna.narrate")(function* (
  gateway: ModelGatewayApi,
  messages: ReadonlyArray<ModelMessage>,
  narration: string,
  results: ReadonlyArray<CitableResult>
) {
  const input = results.map((r) => ({ ref: r.ref, payload: r.payload }))
  const first = checkAnchors({ narration, results: input })
  if (first.ok) return { narration, partial: false, attempts: [metricsOf(1, first)], models: [] } satisfies Narrated
  const repaired = yield* Effect.either(gateway.complete({
    messages: [...messages, { role: "assistant", content: narration }, { role: "user", content: repairPrompt(first) }],
    functions: []
  }))
  const keptFirst = anchoredPart(narration, results)
  if (Either.isLeft(repaired)) {
    return { ...closeWith(keptFirst.narration), attempts: [metricsOf(1, first)], models: [] } satisfies Narrated
  }
  const second = repaired.right.content ?? ""
  const report = checkAnchors({ narration: second, results: input })
  const attempts = [metricsOf(1, first), metricsOf(2, report)]
  const models = [repaired.right.model]
  if (report.ok && report.anchors.length >= keptFirst.anchors) return { narration: second, partial: false, attempts, models }
  const keptSecond = anchoredPart(second, results)
  const best = keptSecond.anchors > keptFirst.anchors ? keptSecond : keptFirst
  return { ...closeWith(best.narration), attempts, models } satisfies Narrated
})

const closeWith = (kept: string) => ({
  narration: kept.trim() === "" ? NOTHING_ANCHORED : `${kept.trim()} ${LEFT_OUT}`,
  partial: true
})
