import { FetchHttpClient } from "@effect/platform"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { LoggingLive } from "../../layers/Logging.ts"
import { compare } from "./Comparison.ts"

const body = JSON.stringify({ input: {} })

const program = compare({
  title: "bench:http  POST /api/v1/tools/core.timestamp.now/execute",
  breinLabel: "brein (HttpApi + audit)",
  baselineLabel: "node:http + 1 INSERT",
  baselineScript: "src/bench/BaselineHttp.ts",
  baselineReadyPath: "/",
  brein: (origin, key) => ({
    url: `${origin}/api/v1/tools/core.timestamp.now/execute`,
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body
  }),
  baseline: (origin) => ({
    url: `${origin}/api/v1/tools/core.timestamp.now/execute`,
    headers: { "content-type": "application/json" },
    body
  }),
  accepts: (status, text) => status === 200 && text.includes("\"data\""),
  goals: { throughput: 0.5, p99: 2 }
}).pipe(Effect.scoped)

program.pipe(
  Effect.provide(Layer.mergeAll(NodeContext.layer, FetchHttpClient.layer, LoggingLive)),
  NodeRuntime.runMain({ disablePrettyLogger: true })
)
