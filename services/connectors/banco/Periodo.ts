import { Effect } from "effect"
import { InvalidInput } from "../../../schema/Errors.ts"
import { currentPeriodo, daysInMonth, formatPeriodo, parsePeriodo } from "../../upstream/CivilDate.ts"

/** Chilean banks show the cartola of the last 24 months online. */
export const MESES_HISTORIA = 24

export { currentPeriodo }

export const syncablePeriodos = Effect.map(currentPeriodo, (current) => ({
  desde: formatPeriodo(parsePeriodo(current) - MESES_HISTORIA),
  hasta: current
}))

export const checkPeriodo = Effect.fn("Banco.checkPeriodo")(function* (periodo: string) {
  const { desde, hasta } = yield* syncablePeriodos
  if (periodo >= desde && periodo <= hasta) return
  const message = `the bank shows movements from ${desde} up to ${hasta}; ${periodo} is outside`
  return yield* new InvalidInput({ message: `input.periodo: ${message}`, issues: [{ path: "input.periodo", message }] })
})

/** First and last calendar day of a month, as YYYY-MM-DD. */
export const monthBounds = (periodo: string): readonly [string, string] => {
  const last = daysInMonth(Number(periodo.slice(0, 4)), Number(periodo.slice(5, 7)))
  return [`${periodo}-01`, `${periodo}-${String(last).padStart(2, "0")}`]
}

/** Every month from the one of `desde` to the one of `hasta` (dates YYYY-MM-DD), in order. */
export const periodosBetween = (desde: string, hasta: string): ReadonlyArray<string> => {
  const from = parsePeriodo(desde.slice(0, 7))
  const to = parsePeriodo(hasta.slice(0, 7))
  return Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => formatPeriodo(from + i))
}

/** Consecutive months as one span, for messages: "2025-01..2025-06, 2025-09". */
export const spans = (periodos: ReadonlyArray<string>) => {
  const out: Array<[number, number]> = []
  for (const month of periodos.map(parsePeriodo)) {
    const last = out[out.length - 1]
    if (last !== undefined && last[1] + 1 === month) last[1] = month
    else out.push([month, month])
  }
  return out.map(([a, b]) => (a === b ? formatPeriodo(a) : `${formatPeriodo(a)}..${formatPeriodo(b)}`)).join(", ")
}
