import { type NodeIncomingMessageLike, toNodeHandler } from "@modelcontextprotocol/node"
import { createMcpHandler, fromJsonSchema, McpServer } from "@modelcontextprotocol/server"
import { createServer, type IncomingMessage } from "node:http"

// The reference brein's /mcp is measured against: a bare stateless v2 handler with one tool that
// answers a constant; its schemas are built once, outside the per-request factory.
const port = Number(process.argv[2] ?? "0")
const message = { type: "object", properties: { message: { type: "string" } }, required: ["message"], additionalProperties: false } as const
const inputSchema = fromJsonSchema<{ message: string }>(message)
const outputSchema = fromJsonSchema<{ message: string }>(message)
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
// exactOptionalPropertyTypes: IncomingMessage's optional fields admit undefined, the SDK's do not.
const like = (req: IncomingMessage): NodeIncomingMessageLike => ({
  method: req.method ?? "GET",
  url: req.url ?? "/",
  headers: req.headers,
  [Symbol.asyncIterator]: () => req[Symbol.asyncIterator]()
})
createServer((req, res) => void handler(like(req), res)).listen(port, "127.0.0.1")
