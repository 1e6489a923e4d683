import { Command } from "@effect/cli"
import type { Option } from "effect"
import type { Port } from "../../schema/Port.ts"
import { loaded } from "./Loaded.ts"
import { dataDir, port } from "./Settings.ts"

const options = { port, dataDir }

/** `brein serve` (and `brein` alone): the server is loaded when it runs (src/cli/ServeApp.ts). */
export const runServe = (flags: { readonly port: Option.Option<Port>; readonly dataDir: Option.Option<string> }) =>
  loaded(() => import("./ServeApp.ts"), (app) => app.runServe(flags))

export const serveCommand = Command.make("serve", options, runServe).pipe(
  Command.withDescription("Run the HTTP API, its docs and MCP at /mcp (the default command)")
)

export const serveOptions = options
