import type { CallPolicy, Cost, Hints, Plane } from "../../schema/tools/Definition.ts"

export type DirectPolicy = Exclude<CallPolicy, "read">

/** How a call that writes no persistence buffer is audited, from what it promises and what it costs. */
export const directPolicyOf = (tool: { readonly hints: Hints; readonly cost: Cost }): DirectPolicy =>
  !tool.hints.readOnly ? "writes" : tool.cost.kind === "free" ? "pure" : "spends"

/** A tool's call policy, derived once when the registry is built. */
export const policyOf = (tool: { readonly plane: Plane; readonly hints: Hints; readonly cost: Cost }): CallPolicy =>
  tool.plane === "read" ? "read" : directPolicyOf(tool)
