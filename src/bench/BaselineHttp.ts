import { hash, randomUUID } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import pg from "pg"

// The reference brein's HTTP surface is measured against: raw node:http, one INSERT per request
// into an audit-shaped table, a pg pool as large as brein's (pg's default of 10).
const [portArg, url] = process.argv.slice(2)
const pool = new pg.Pool({ connectionString: url, max: 10 })

const CREATE = `CREATE TABLE IF NOT EXISTS bench_audit (
  chain text NOT NULL,
  seq bigint GENERATED ALWAYS AS IDENTITY,
  request_id text NOT NULL,
  at timestamptz NOT NULL,
  workspace_id text NOT NULL,
  principal text NOT NULL,
  surface text NOT NULL,
  tool_id text NOT NULL,
  plane text NOT NULL,
  connection_id text,
  input_digest text NOT NULL,
  output_digest text,
  outcome text NOT NULL,
  error_tag text,
  latency_ms double precision NOT NULL,
  cost text NOT NULL,
  prev_digest text NOT NULL,
  digest text NOT NULL,
  PRIMARY KEY (chain, seq)
)`

const INSERT = `INSERT INTO bench_audit (chain, request_id, at, workspace_id, principal, surface, tool_id, plane,
  input_digest, output_digest, outcome, latency_ms, cost, prev_digest, digest)
  VALUES ('bench', $1, $2, 'ws_bench', 'key_bench', 'http', 'core.timestamp.now', 'action', $3, $4, 'ok', $5, 'free', '', $6)`

const sha256 = (text: string) => hash("sha256", text, "hex")

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
    const inputDigest = sha256(raw)
    const outputDigest = sha256(JSON.stringify(data))
    const latency = performance.now() - started
    pool.query(INSERT, [requestId, now, inputDigest, outputDigest, latency, sha256(inputDigest + outputDigest)]).then(
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

pool.query(CREATE).then(() =>
  createServer((req, res) => (req.method === "POST" ? execute(req, res) : reply(res, 200, "{\"status\":\"ok\"}"))).listen(
    Number(portArg),
    "127.0.0.1"
  )
)
