import { Effect } from "effect"
import type { Principal } from "../../../schema/Principal.ts"
import type { ToolResponse } from "../../../schema/tools/Response.ts"
import { Executor } from "../../../services/pipeline/Executor.ts"
import { callContext } from "../../support/TestLayers.ts"

export interface TopicData {
  readonly id: string
  readonly area: string
  readonly title: string
  readonly body: string
  readonly tags: ReadonlyArray<string>
  readonly pattern: string | null
  readonly pattern_variables: ReadonlyArray<string>
  readonly version: number
  readonly created_by: string
  readonly updated_by: string
}

/** A tool's data as a record: the tests read the fields they assert on. */
export const dataOf = (response: ToolResponse) => response.data as Record<string, unknown>
export const topicOf = (response: ToolResponse) => dataOf(response)["topic"] as TopicData

export const call = (principal: Principal, tool: string, input: unknown) =>
  Effect.flatMap(Executor, (executor) => executor.call(tool, input, callContext(principal)))

export const failure = (principal: Principal, tool: string, input: unknown) => Effect.flip(call(principal, tool, input))

export const create = (principal: Principal, input: Record<string, unknown>) =>
  Effect.map(call(principal, "context_create", { area: "procesos", body: "Cómo trabajamos.", ...input }), topicOf)
