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

/** A typed tool error as the model sees it: `isError` with `{ _tag, message, ... }`. */
export const failure = (error: ToolError): CallToolResult => {
  const encoded = encodeError(error)
  return { content: asText(encoded), structuredContent: encoded, isError: true }
}
