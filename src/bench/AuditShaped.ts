import { hash } from "node:crypto"

// What the baselines write in place of brein's audit row: one INSERT per request into a table of the
// audit log's shape (the same columns, its primary key), with the three digests computed as brein does.

export const CREATE_AUDIT_SHAPED = `CREATE TABLE IF NOT EXISTS bench_audit (
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

export const INSERT_AUDIT_SHAPED = `INSERT INTO bench_audit (chain, request_id, at, workspace_id, principal, surface, tool_id, plane,
  input_digest, output_digest, outcome, latency_ms, cost, prev_digest, digest)
  VALUES ('bench', $1, $2, 'ws_bench', 'key_bench', $3, $4, 'action', $5, $6, 'ok', $7, 'free', '', $8)`

export const sha256 = (text: string) => hash("sha256", text, "hex")

/** The parameters of INSERT_AUDIT_SHAPED for one call: its input and output as text, digested. */
export const auditShapedRow = (
  row: { readonly requestId: string; readonly surface: string; readonly toolId: string; readonly input: string; readonly output: string },
  at: Date,
  latencyMs: number
) => {
  const inputDigest = sha256(row.input)
  const outputDigest = sha256(row.output)
  return [row.requestId, at, row.surface, row.toolId, inputDigest, outputDigest, latencyMs, sha256(inputDigest + outputDigest)]
}
