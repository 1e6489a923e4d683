import { type NodeIncomingMessageLike, toNodeHandler } from "@modelcontextprotocol/node"
import { createMcpHandler, fromJsonSchema, McpServer } from "@modelcontextprotocol/server"
import { randomUUID } from "node:crypto"
import { createServer, type IncomingMessage } from "node:http"
import pg from "pg"
import { auditShapedRow, CREATE_AUDIT_SHAPED, INSERT_AUDIT_SHAPED } from "./AuditShaped.ts"

// The reference brein's /mcp is measured against: a bare stateless v2 handler with one tool that
// answers a constant; its schemas are built once, outside the per-request factory. Run with `insert`
// after the database url, the tool also writes one audit-shaped row per call (one INSERT, not grouped)
// before it answers: the floor of a handler that records every call, as brein does.
const [portArg, url, mode] = process.argv.slice(2)
const port = Number(portArg ?? "0")
const pool = mode === "insert" ? new pg.Pool({ connectionString: url, max: 10 }) : undefined
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
    pool === undefined ? () => result : (args) => {
      const at = new Date()
      const row = {
        requestId: `req_${randomUUID()}`,
        surface: "mcp",
        toolId: "echo.message.reflect",
        input: JSON.stringify(args),
        output: result.content[0].text
      }
      return pool.query(INSERT_AUDIT_SHAPED, auditShapedRow(row, at, 0)).then(() => result)
    }
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
const listen = () => createServer((req, res) => void handler(like(req), res)).listen(port, "127.0.0.1")
if (pool === undefined) listen()
else void pool.query(CREATE_AUDIT_SHAPED).then(listen)
