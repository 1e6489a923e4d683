import { Command } from "@effect/cli"
import { anchors } from "./Anchors.ts"
import { audit } from "./Audit.ts"
import { benchCommand } from "./Bench.ts"
import { connections } from "./Connections.ts"
import { credits } from "./Credits.ts"
import { db } from "./Db.ts"
import { keys } from "./Keys.ts"
import { mailboxes, suppressions } from "./Mailboxes.ts"
import { mcp } from "./Mcp.ts"
import { seedCommand } from "./Seed.ts"
import { runServe, serveCommand, serveOptions } from "./Serve.ts"
import { users } from "./Users.ts"
import { workspaces } from "./Workspaces.ts"

export const commands = [
  serveCommand,
  mcp,
  keys,
  workspaces,
  connections,
  credits,
  seedCommand,
  db,
  audit,
  users,
  mailboxes,
  suppressions,
  anchors,
  benchCommand
] as const

export const root = Command.make("brein", serveOptions, runServe).pipe(
  Command.withDescription("A registry of tools served over HTTP and MCP. Without a command: serve.")
)

/** The `brein` program: serve without a command, and its commands. */
export const brein = root.pipe(Command.withSubcommands(commands))
