import type { Transport } from "@modelcontextprotocol/server"
import { serveStdio } from "@modelcontextprotocol/server/stdio"
import { Effect, Runtime } from "effect"
import type { Principal } from "../../schema/Principal.ts"
import { makeMcpSurface } from "./Surface.ts"

/**
 * MCP for one principal over stdio (or another stream transport) until the scope closes. The SDK
 * pins the era from the client's opening: `initialize` (2025) or `server/discover` (2026-07-28).
 */
export const serveMcpStdio = (principal: Principal, options: { readonly transport?: Transport } = {}) =>
  Effect.gen(function* () {
    const surface = yield* makeMcpSurface
    const runtime = yield* Effect.runtime<never>()
    yield* Effect.acquireRelease(
      Effect.sync(() =>
        serveStdio(() => surface.server(principal), {
          ...options,
          onerror: (error) => Runtime.runFork(runtime)(Effect.logWarning("MCP stdio error", error.message))
        })
      ),
      (handle) => Effect.promise(() => handle.close())
    )
  })
