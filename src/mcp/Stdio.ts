import { parseJSONRPCMessage, ProtocolErrorCode, STDIO_DEFAULT_MAX_BUFFER_SIZE, type Transport } from "@modelcontextprotocol/server"
import { serveStdio, StdioServerTransport } from "@modelcontextprotocol/server/stdio"
import { Effect, Either, Predicate, Runtime } from "effect"
import type { Unauthorized } from "../../schema/Errors.ts"
import type { Principal } from "../../schema/Principal.ts"
import { BoundedLines, type Refusal } from "./BoundedLines.ts"
import { makeMcpSurface } from "./Surface.ts"

/** The longest message read from stdin, in bytes: the SDK's own bound (10 MiB). */
export const MAX_LINE_BYTES = STDIO_DEFAULT_MAX_BUFFER_SIZE

type Checked =
  | { readonly why: "not_json" }
  | { readonly why: "not_jsonrpc"; readonly id: string | number | undefined }

/** The id of a message that is not JSON-RPC, where it has one a client could be waiting on. */
const idOf = (value: unknown) =>
  Predicate.hasProperty(value, "id") && (typeof value.id === "string" || typeof value.id === "number") ? value.id : undefined

/**
 * A line the SDK would drop without a word (not JSON) or report only to the server's log (JSON, not JSON-RPC):
 * either way its client would wait on an answer that never comes. Blank lines pass; the SDK skips them.
 */
const checkLine = (line: string): Checked | undefined => {
  if (line.trim() === "") return undefined
  const parsed = Either.try(() => JSON.parse(line) as unknown)
  if (Either.isLeft(parsed)) return { why: "not_json" }
  return Either.isLeft(Either.try(() => parseJSONRPCMessage(parsed.right)))
    ? { why: "not_jsonrpc", id: idOf(parsed.right) }
    : undefined
}

const skipped = "was skipped; the lines after it are served"
const refusals: Record<Refusal<Checked>["why"], { readonly code: number; readonly message: string }> = {
  too_long: {
    code: ProtocolErrorCode.ParseError,
    message: `Parse error: a line longer than ${MAX_LINE_BYTES} bytes (10 MiB) was skipped unread; the lines after it are served`
  },
  not_utf8: {
    code: ProtocolErrorCode.ParseError,
    message:
      "Parse error: a line that is not UTF-8 was skipped unread (send JSON-RPC messages encoded as UTF-8); the lines after it are served"
  },
  not_json: {
    code: ProtocolErrorCode.ParseError,
    message: `Parse error: a line that is not JSON ${skipped} (send one JSON-RPC message per line)`
  },
  not_jsonrpc: {
    code: ProtocolErrorCode.InvalidRequest,
    message: `Invalid request: a line that is JSON but not a JSON-RPC 2.0 message ${skipped} ` +
      `(a request needs "jsonrpc": "2.0", an id and a method)`
  }
}

const refuseLine = Effect.fn("McpStdio.refuseLine")(function* (wire: Transport, refusal: Refusal<Checked>) {
  const { code, message } = refusals[refusal.why]
  yield* Effect.logWarning(`MCP stdio: ${message}`)
  // an id is answered when the line had one; otherwise (never parsed, or no id in it) the error goes without one
  const id = refusal.why === "not_jsonrpc" ? refusal.id : undefined
  yield* Effect.tryPromise(() => wire.send({ jsonrpc: "2.0", ...(id === undefined ? {} : { id }), error: { code, message } })).pipe(
    Effect.catchTag("UnknownException", (error) => Effect.logWarning("MCP stdio: the refusal was not written", error.message))
  )
})

/** The SDK's stdio transport over stdin cut into UTF-8 lines of at most MAX_LINE_BYTES, any other refused on the wire. */
const boundedStdio = Effect.gen(function* () {
  const runtime = yield* Effect.runtime<never>()
  const lines = new BoundedLines(MAX_LINE_BYTES, checkLine, (refusal) => Runtime.runFork(runtime)(refuseLine(wire, refusal)))
  const wire: Transport = new StdioServerTransport(lines, process.stdout, { maxBufferSize: MAX_LINE_BYTES + 1 })
  return yield* Effect.acquireRelease(
    Effect.sync(() => (process.stdin.pipe(lines), wire)),
    () => Effect.sync(() => void process.stdin.unpipe(lines))
  )
})

/**
 * MCP for one principal over stdio (or another stream transport) until the scope closes. The SDK
 * pins the era from the client's opening: `initialize` (2025) or `server/discover` (2026-07-28).
 */
export const serveMcpStdio = (
  principal: Principal,
  options: {
    readonly transport?: Transport
    /** The principal again before each call (its key may be revoked while the connection is open). */
    readonly current?: Effect.Effect<Principal, Unauthorized>
  } = {}
) =>
  Effect.gen(function* () {
    const surface = yield* makeMcpSurface
    const runtime = yield* Effect.runtime<never>()
    const transport = options.transport ?? (yield* boundedStdio)
    yield* Effect.acquireRelease(
      Effect.sync(() =>
        serveStdio(() => surface.server(principal, undefined, options.current), {
          transport,
          onerror: (error) => Runtime.runFork(runtime)(Effect.logWarning("MCP stdio error", error.message))
        })
      ),
      (handle) => Effect.promise(() => handle.close())
    )
  })
