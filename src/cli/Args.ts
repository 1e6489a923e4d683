import { Data } from "effect"

export class UsageError extends Data.TaggedError("UsageError")<{ readonly message: string }> {}

export type Flags = Readonly<Record<string, string>>

export interface Parsed {
  readonly command: ReadonlyArray<string>
  readonly flags: Flags
}

/** `keys create --workspace acme --plan paid` → command ["keys", "create"], flags { workspace, plan }. */
export const parseArgs = (argv: ReadonlyArray<string>): Parsed => {
  const command: Array<string> = []
  const flags: Record<string, string> = {}
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg.startsWith("--")) {
      const [name, inline] = arg.slice(2).split("=", 2) as [string, string | undefined]
      flags[name] = inline ?? argv[++i] ?? ""
    } else {
      command.push(arg)
    }
  }
  return { command, flags }
}

export const USAGE = `brein — a registry of tools served over HTTP and MCP

  brein serve                      run the HTTP API, docs and MCP at /mcp (default)
  brein mcp                        MCP over stdio (needs BREIN_API_KEY)
  brein keys create [--workspace NAME] [--plan free|paid]
                                   make an API key; prints the key alone on stdout
  brein audit verify               walk the audit hash chain; exit 1 at the first broken row

Environment: PORT (8787), DATABASE_URL (unset = embedded PostgreSQL), BREIN_DATA_DIR (.brein), LOG_LEVEL (Info)`
