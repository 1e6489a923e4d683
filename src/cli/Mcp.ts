import { Command } from "@effect/cli"
import { loaded } from "./Loaded.ts"
import { database } from "./Settings.ts"

/** `brein mcp`: MCP over stdio, loaded when it runs (src/cli/McpStdio.ts). */
export const mcp = Command.make(
  "mcp",
  database,
  (options) => loaded(() => import("./McpStdio.ts"), (stdio) => stdio.runMcp(options))
).pipe(
  Command.withDescription("MCP over stdio for the workspace of BREIN_API_KEY (stdout is the wire, logs go to stderr)")
)
