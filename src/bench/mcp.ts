import { FetchHttpClient } from "@effect/platform"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Config, Effect, Layer, Schema } from "effect"
import { LoggingLive } from "../../layers/Logging.ts"
import { compare } from "./Comparison.ts"
import { oneOf, Settings, settingsFirst } from "./Settings.ts"

const TOOL = "echo.message.reflect"
const MODERN = "2026-07-28"
const Era = Schema.Literal("modern", "legacy")
// `sdk`: the reference, the bare handler; `sdk+insert`: the same handler writing one audit-shaped row per call.
const Baseline = Schema.Literal("sdk", "sdk+insert")

// modern: one self-describing POST (per-request _meta envelope and its mirror headers);
// legacy: a claim-less tools/call, which a stateless 2025-era endpoint serves without initialize.
const call = (era: typeof Era.Type) => {
  const params = { name: TOOL, arguments: { message: "bench" } }
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: era === "modern"
      ? { ...params, _meta: { "io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {} } }
      : params
  })
  const headers = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    ...(era === "modern" ? { "mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": TOOL } : {})
  }
  return { body, headers }
}

const isResult = (status: number, text: string) => status === 200 && text.includes("\"result\"") && !text.includes("\"isError\":true")

const EraSetting = oneOf("BENCH_MCP_ERA", Era.literals, "modern")
const BaselineSetting = oneOf("BENCH_MCP_BASELINE", Baseline.literals, "sdk")

const program = Effect.gen(function* () {
  const era = yield* EraSetting
  const baseline = yield* BaselineSetting
  const { body, headers } = call(era)
  return yield* compare({
    title: `bench:mcp  tools/call ${TOOL} over /mcp (${era} era)${
      baseline === "sdk" ? "" : ", against the floor of a handler that records each call (the goal is set against the bare handler)"
    }`,
    breinLabel: "brein /mcp (executor + audit)",
    baselineLabel: baseline === "sdk" ? "bare MCP v2 handler" : "MCP v2 handler + 1 INSERT",
    baselineScript: "src/bench/BaselineMcp.ts",
    baselineArgs: baseline === "sdk" ? [] : ["insert"],
    baselineReadyPath: "/mcp",
    brein: (origin, key) => ({ url: `${origin}/mcp`, headers: { ...headers, authorization: `Bearer ${key}` }, body }),
    baseline: (origin) => ({ url: `${origin}/mcp`, headers, body }),
    accepts: isResult,
    goals: { throughput: 0.8 }
  })
}).pipe(Effect.scoped)

program.pipe(
  Effect.provide(Layer.mergeAll(NodeContext.layer, FetchHttpClient.layer, LoggingLive)),
  settingsFirst(Config.all([EraSetting, BaselineSetting, Settings])),
  NodeRuntime.runMain({ disablePrettyLogger: true })
)
