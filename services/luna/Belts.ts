import type { Stage } from "../../schema/tools/Definition.ts"
import type { RegisteredTool } from "../tools/Registry.ts"

/**
 * The tools Luna sees at a stage: those whose definition lists the stage, by id. The registry refuses
 * to build when a stage would show more than MAX_VISIBLE_TOOLS (services/tools/Invariants.ts), so a
 * belt is never cut here.
 */
export const beltOf = (tools: ReadonlyArray<RegisteredTool>, stage: Stage): ReadonlyArray<RegisteredTool> =>
  tools.filter((tool) => tool.descriptor.stages.includes(stage)).sort((a, b) =>
    a.descriptor.id < b.descriptor.id ? -1 : a.descriptor.id > b.descriptor.id ? 1 : 0
  )

/** The stage a successful call moves the session to: a saved or opened list puts it on con_lista. */
export const stageAfter = (toolId: string, current: Stage): Stage => {
  if (toolId === "list_save" || toolId === "list_get") return "con_lista"
  if ((toolId === "companies_search" || toolId === "people_search") && current === "buscando") return "prospectando"
  return current
}
