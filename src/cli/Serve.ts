import { Config, Console, Effect, Layer, Option, Redacted } from "effect"
import { Workspaces } from "../../services/workspace/Workspaces.ts"
import { HttpServerLive } from "../http/Server.ts"

const announceDemo = Effect.gen(function* () {
  const workspaces = yield* Workspaces
  const port = yield* Config.integer("PORT").pipe(Config.withDefault(8787))
  const demo = yield* workspaces.ensureDemo()
  if (Option.isNone(demo)) return
  const key = Redacted.value(demo.value.key)
  yield* Effect.logInfo("first start: created the demo workspace (paid plan) and its API key; it is shown only now")
  yield* Console.error(
    [
      "",
      `  Demo API key (shown once): ${key}`,
      "",
      `  curl -s http://localhost:${port}/api/v1/tools/core.timestamp.now/execute \\`,
      `    -H "Authorization: Bearer ${key}" -H "Content-Type: application/json" \\`,
      `    -d '{"input": {"timezone": "America/Santiago"}}'`,
      "",
      `  Docs: http://localhost:${port}/docs   MCP: http://localhost:${port}/mcp`,
      "  Another key: npx brein keys create --workspace NAME --plan free|paid",
      "",
      ""
    ].join("\n")
  )
})

export const serve = Layer.mergeAll(HttpServerLive, Layer.effectDiscard(announceDemo))
