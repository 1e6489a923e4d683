import { Data, Effect } from "effect"

export class RequestFailed extends Data.TaggedError("RequestFailed")<{ readonly code: string; readonly message: string }> {}

export interface Answer {
  readonly status: number
  readonly text: string
  readonly headers: Headers
  readonly ms: number
}

/** The network error's code (ECONNRESET, UND_ERR_SOCKET, ECONNREFUSED…), else its message. */
export const errorCode = (cause: unknown): string => {
  const inner = cause instanceof Error && cause.cause !== undefined ? cause.cause : cause
  if (typeof inner === "object" && inner !== null && "code" in inner && typeof inner.code === "string") return inner.code
  return inner instanceof Error ? inner.message : String(inner)
}

export const request = (
  url: string,
  init: { readonly method?: string; readonly headers?: Record<string, string>; readonly body?: string } = {}
) =>
  Effect.tryPromise({
    try: (signal) => {
      const started = performance.now()
      return fetch(url, { ...init, signal }).then((response) =>
        response.text().then((text) =>
          ({ status: response.status, text, headers: response.headers, ms: performance.now() - started }) satisfies Answer
        )
      )
    },
    catch: (cause) => new RequestFailed({ code: errorCode(cause), message: String(cause) })
  })

const json = (key: string) => ({ "content-type": "application/json", authorization: `Bearer ${key}` })

/** POST /api/v1/tools/{id}/execute; `body` is sent as given (deep or huge payloads are built as text). */
export const executeRaw = (origin: string, key: string, tool: string, body: string, headers: Record<string, string> = {}) =>
  request(`${origin}/api/v1/tools/${tool}/execute`, { method: "POST", headers: { ...json(key), ...headers }, body })

export const execute = (origin: string, key: string, tool: string, input: unknown, headers: Record<string, string> = {}) =>
  executeRaw(origin, key, tool, JSON.stringify({ input }), headers)

/** A claim-less MCP tools/call (served statelessly, no initialize); `args` is the arguments' JSON text. */
export const mcpCall = (origin: string, key: string, name: string, args: string) =>
  request(`${origin}/mcp`, {
    method: "POST",
    headers: { ...json(key), accept: "application/json, text/event-stream" },
    body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":${JSON.stringify(name)},"arguments":${args}}}`
  })

export const auditStatus = (text: string) => /"audit_status":"([a-z_]+)"/.exec(text)?.[1] ?? "none"

export const errorTag = (text: string) => /"_tag":"([A-Za-z]+)"/.exec(text)?.[1]

/** A REST answer in a few words: "tool 200 recorded", "list 503 ServiceUnavailable +Retry-After", "list empty 500". */
export const describeAnswer = (what: "tool" | "list") => (a: Answer) =>
  a.status === 200
    ? `${what} 200${what === "tool" ? ` ${auditStatus(a.text)}` : ""}`
    : a.text === ""
    ? `${what} empty ${a.status}`
    : `${what} ${a.status} ${errorTag(a.text) ?? "untyped"}${a.headers.has("retry-after") ? " +Retry-After" : ""}`

/** What an MCP answer was: a JSON-RPC error code, a tool error (isError) or a result. */
export const mcpOutcome = (answer: Answer) => {
  const code = /"error":\{"code":(-?\d+)/.exec(answer.text)?.[1]
  if (code !== undefined) return `JSON-RPC ${code}`
  if (answer.text.includes("\"isError\":true")) return `tool error ${errorTag(answer.text) ?? ""}`.trim()
  if (answer.text.includes("\"result\"")) return "result"
  return `HTTP ${answer.status}${answer.text === "" ? " empty" : ""}`
}

/** "200×5, 503×3": how often each value was seen, most frequent first. */
export const tally = (values: ReadonlyArray<string | number>) => {
  const counts = new Map<string, number>()
  for (const value of values) counts.set(String(value), (counts.get(String(value)) ?? 0) + 1)
  if (counts.size === 0) return "none"
  return [...counts].sort((a, b) => b[1] - a[1]).map(([value, count]) => `${value}×${count}`).join(", ")
}

export const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`
export const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`
