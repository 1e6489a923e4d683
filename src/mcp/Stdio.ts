import { ProtocolErrorCode, STDIO_DEFAULT_MAX_BUFFER_SIZE, type Transport } from "@modelcontextprotocol/server"
import { serveStdio, StdioServerTransport } from "@modelcontextprotocol/server/stdio"
import { Effect, Runtime } from "effect"
import type { Unauthorized } from "../../schema/Errors.ts"
import type { Principal } from "../../schema/Principal.ts"
import { BoundedLines, type Refused } from "./BoundedLines.ts"
import { makeMcpSurface } from "./Surface.ts"

/** The longest message read from stdin, in bytes: the SDK's own bound (10 MiB). */
export const MAX_LINE_BYTES = STDIO_DEFAULT_MAX_BUFFER_SIZE

const refusals: Record<Refused, string> = {
  too_long: `Parse error: a line longer than ${MAX_LINE_BYTES} bytes (10 MiB) was skipped unread; the lines after it are served`,
  not_utf8:
    "Parse error: a line that is not UTF-8 was skipped unread (send JSON-RPC messages encoded as UTF-8); the lines after it are served"
}

const refuseLine = Effect.fn("McpStdio.refuseLine")(function* (wire: Transport, why: Refused) {
  const message = refusals[why]
  yield* Effect.logWarning(`MCP stdio: ${message}`)
  // the line was never parsed, so its id is unknown: the error goes without one (JSON-RPC's parse error)
  yield* Effect.tryPromise(() => wire.send({ jsonrpc: "2.0", error: { code: ProtocolErrorCode.ParseError, message } })).pipe(
    Effect.catchTag("UnknownException", (error) => Effect.logWarning("MCP stdio: the parse error was not written", error.message))
  )
})

/** The SDK's stdio transport over stdin cut into UTF-8 lines of at most MAX_LINE_BYTES, any other refused on the wire. */
const boundedStdio = Effect.gen(function* () {
  const runtime = yield* Effect.runtime<never>()
  const lines = new BoundedLines(MAX_LINE_BYTES, (why) => Runtime.runFork(runtime)(refuseLine(wire, why)))
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
