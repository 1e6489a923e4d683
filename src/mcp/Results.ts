import type { CallToolResult } from "@modelcontextprotocol/server"
import { Schema } from "effect"
import { ToolError } from "../../schema/tools/ToolError.ts"

const encodeError = Schema.encodeSync(ToolError)

const asText = (value: unknown) => [{ type: "text" as const, text: JSON.stringify(value) }]

/** A successful call: the executor's `{ data, meta }` as structured content, and as text for older clients. */
export const success = (structured: Record<string, unknown>): CallToolResult => ({
  content: asText(structured),
  structuredContent: structured
})

/**
 * A typed tool error as the model sees it: `isError` with `{ _tag, message, ... }` as text. No
 * `structuredContent`: it would have to match the tool's output schema, which describes success.
 */
export const failure = (error: ToolError): CallToolResult => ({ content: asText(encodeError(error)), isError: true })
