import { randomUUID } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import pg from "pg"
import { auditShapedRow, CREATE_AUDIT_SHAPED, INSERT_AUDIT_SHAPED } from "./AuditShaped.ts"

// The reference brein's HTTP surface is measured against: raw node:http, one INSERT per request
// into an audit-shaped table, a pg pool as large as brein's (pg's default of 10).
const [portArg, url] = process.argv.slice(2)
const pool = new pg.Pool({ connectionString: url, max: 10 })

const reply = (res: ServerResponse, status: number, body: string) => {
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
  res.end(body)
}

const execute = (req: IncomingMessage, res: ServerResponse) => {
  const started = performance.now()
  const chunks: Array<Buffer> = []
  req.on("data", (chunk: Buffer) => chunks.push(chunk))
  req.on("end", () => {
    const raw = Buffer.concat(chunks).toString("utf8")
    const requestId = `req_${randomUUID()}`
    const now = new Date()
    const data = { iso: now.toISOString(), epochMs: now.getTime(), timezone: "UTC" }
    const latency = performance.now() - started
    const row = { requestId, surface: "http", toolId: "core.timestamp.now", input: raw, output: JSON.stringify(data) }
    pool.query(INSERT_AUDIT_SHAPED, auditShapedRow(row, now, latency)).then(
      () =>
        reply(
          res,
          200,
          JSON.stringify({
            data,
            meta: { request_id: requestId, tool_id: "core.timestamp.now", plane: "action", latency_ms: latency, audit_status: "recorded" }
          })
        ),
      () => reply(res, 503, JSON.stringify({ _tag: "AuditUnavailable", message: "the audit row could not be written" }))
    )
  })
}

pool.query(CREATE_AUDIT_SHAPED).then(() =>
  createServer((req, res) => (req.method === "POST" ? execute(req, res) : reply(res, 200, "{\"status\":\"ok\"}"))).listen(
    Number(portArg),
    "127.0.0.1"
  )
)
