import { Clock, Effect } from "effect"
import { InvalidInput } from "../../../schema/Errors.ts"

export const RCV_FIRST_PERIODO = "2017-08"

const currentPeriodo = Effect.map(Clock.currentTimeMillis, (now) => {
  const parts = new Intl.DateTimeFormat("en-CA", { timeZone: "America/Santiago", year: "numeric", month: "2-digit" }).formatToParts(now)
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? ""
  return `${part("year")}-${part("month")}`
})

/** The RCV exists from 2017-08 (it replaced the IECV) up to the current month in Chile. */
export const checkPeriodo = Effect.fn("Sii.checkPeriodo")(function* (periodo: string) {
  const current = yield* currentPeriodo
  if (periodo >= RCV_FIRST_PERIODO && periodo <= current) return
  const message = `the RCV exists from ${RCV_FIRST_PERIODO} up to ${current}; ${periodo} is outside`
  return yield* new InvalidInput({ message: `input.periodo: ${message}`, issues: [{ path: "input.periodo", message }] })
})
