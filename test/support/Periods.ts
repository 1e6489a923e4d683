import { Effect } from "effect"
import { currentPeriodo, formatPeriodo, parsePeriodo } from "../../services/upstream/CivilDate.ts"

/** A month before the current one on the clock the simulators read: complete, and inside every upstream's window. */
export const monthsAgo = (months: number) => Effect.map(currentPeriodo, (current) => formatPeriodo(parsePeriodo(current) - months))
