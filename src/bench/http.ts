import { FetchHttpClient } from "@effect/platform"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Config, Effect, Layer, Schema } from "effect"
import { LoggingLive } from "../../layers/Logging.ts"
import { compare } from "./Comparison.ts"
import { oneOf, Settings, settingsFirst } from "./Settings.ts"

const body = JSON.stringify({ input: {} })

// `httpapi` sends the id percent-encoded, which the Node bridge leaves to the HttpApi app: the same server, the other path.
const Path = Schema.Literal("bridge", "httpapi")

const PathSetting = oneOf("BENCH_HTTP_PATH", Path.literals, "bridge")

const program = Effect.gen(function* () {
  const path = yield* PathSetting
  const id = path === "bridge" ? "core.timestamp.now" : "core%2Etimestamp.now"
  return yield* compare({
    title: `bench:http  POST /api/v1/tools/core.timestamp.now/execute (${path === "bridge" ? "Node bridge" : "HttpApi app"})`,
    breinLabel: "brein (executor + audit)",
    baselineLabel: "node:http + 1 INSERT",
    baselineScript: "src/bench/BaselineHttp.ts",
    baselineReadyPath: "/",
    brein: (origin, key) => ({
      url: `${origin}/api/v1/tools/${id}/execute`,
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
  })
}).pipe(Effect.scoped)

program.pipe(
  Effect.provide(Layer.mergeAll(NodeContext.layer, FetchHttpClient.layer, LoggingLive)),
  settingsFirst(Config.all([PathSetting, Settings])),
  NodeRuntime.runMain({ disablePrettyLogger: true })
)
