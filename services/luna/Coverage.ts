import type { LunaEvent } from "../../schema/luna/Events.ts"
import { type CitableResult, resultsOf } from "./TurnInput.ts"

/** The ref the narration cites the Mercado coverage by. */
export const COVERAGE_REF = "mercado"
/** The tool that answers it: it has no stage, so the model never sees it; Luna compiles its answer into the turn. */
export const COVERAGE_TOOL = "market_capabilities"

/** The coverage compiled earlier in the session, if any: the latest. */
export const coverageIn = (events: ReadonlyArray<LunaEvent>): CitableResult | null =>
  resultsOf(events).filter((result) => result.ref === COVERAGE_REF).at(-1) ?? null
