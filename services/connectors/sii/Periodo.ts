import { Effect } from "effect"
import { InvalidInput } from "../../../schema/Errors.ts"
import { RCV_FIRST_PERIODO } from "../../../schema/upstream/Rcv.ts"
import { currentPeriodo } from "../../upstream/CivilDate.ts"

/** The RCV exists from 2017-08 (it replaced the IECV) up to the current month in Chile. */
export const checkPeriodo = Effect.fn("Sii.checkPeriodo")(function* (periodo: string) {
  const current = yield* currentPeriodo
  if (periodo >= RCV_FIRST_PERIODO && periodo <= current) return
  const message = `the RCV exists from ${RCV_FIRST_PERIODO} up to ${current}; ${periodo} is outside`
  return yield* new InvalidInput({ message: `input.periodo: ${message}`, issues: [{ path: "input.periodo", message }] })
})
