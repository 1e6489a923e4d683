import { ProtocolErrorCode, STDIO_DEFAULT_MAX_BUFFER_SIZE, type Transport } from "@modelcontextprotocol/server"
import { serveStdio, StdioServerTransport } from "@modelcontextprotocol/server/stdio"
import { Effect, Runtime } from "effect"
import type { Principal } from "../../schema/Principal.ts"
import { BoundedLines } from "./BoundedLines.ts"
import { makeMcpSurface } from "./Surface.ts"

/** The longest message read from stdin, in bytes: the SDK's own bound (10 MiB). */
export const MAX_LINE_BYTES = STDIO_DEFAULT_MAX_BUFFER_SIZE

const lineTooLong = `Parse error: a line longer than ${MAX_LINE_BYTES} bytes (10 MiB) was skipped unread; the lines after it are served`

const refuseLongLine = Effect.fn("McpStdio.refuseLongLine")(function* (wire: Transport) {
  yield* Effect.logWarning(`MCP stdio: ${lineTooLong}`)
  // the line was never parsed, so its id is unknown: the error goes without one (JSON-RPC's parse error)
  yield* Effect.tryPromise(() => wire.send({ jsonrpc: "2.0", error: { code: ProtocolErrorCode.ParseError, message: lineTooLong } })).pipe(
    Effect.catchTag("UnknownException", (error) => Effect.logWarning("MCP stdio: the parse error was not written", error.message))
  )
})

/** The SDK's stdio transport over stdin cut into lines of at most MAX_LINE_BYTES, a longer one refused on the wire. */
const boundedStdio = Effect.gen(function* () {
  const runtime = yield* Effect.runtime<never>()
  const lines = new BoundedLines(MAX_LINE_BYTES, () => Runtime.runFork(runtime)(refuseLongLine(wire)))
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
export const serveMcpStdio = (principal: Principal, options: { readonly transport?: Transport } = {}) =>
  Effect.gen(function* () {
    const surface = yield* makeMcpSurface
    const runtime = yield* Effect.runtime<never>()
    const transport = options.transport ?? (yield* boundedStdio)
    yield* Effect.acquireRelease(
      Effect.sync(() =>
        serveStdio(() => surface.server(principal), {
          transport,
          onerror: (error) => Runtime.runFork(runtime)(Effect.logWarning("MCP stdio error", error.message))
        })
      ),
      (handle) => Effect.promise(() => handle.close())
    )
  })
