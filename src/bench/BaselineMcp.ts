import { createServer } from "node:http"
import { toNodeHandler } from "@modelcontextprotocol/node"
import { createMcpHandler, fromJsonSchema, McpServer } from "@modelcontextprotocol/server"
import { JSONSchema } from "effect"
import { ReflectInput, ReflectOutput } from "../../schema/connectors/Core.ts"

// The reference brein's /mcp is measured against: a bare stateless v2 handler with one tool that
// answers a constant; its schemas are built once, outside the per-request factory.
const port = Number(process.argv[2] ?? "0")
const inputSchema = fromJsonSchema<{ message: string }>(JSONSchema.make(ReflectInput))
const outputSchema = fromJsonSchema<{ message: string }>(JSONSchema.make(ReflectOutput))
const answer = { message: "bench" }
const result = { content: [{ type: "text" as const, text: JSON.stringify(answer) }], structuredContent: answer }

const factory = () => {
  const server = new McpServer({ name: "bench-baseline", version: "0.0.0" })
  server.registerTool(
    "echo.message.reflect",
    {
      description: "Returns a constant.",
      inputSchema,
      outputSchema,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }
    },
    () => result
  )
  return server
}

const handler = toNodeHandler(createMcpHandler(factory))
createServer((req, res) => void handler(req, res)).listen(port, "127.0.0.1")
