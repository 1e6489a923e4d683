import { SqlClient } from "@effect/sql"
import { Clock, Effect, Schema } from "effect"
import type { Principal } from "../../schema/Principal.ts"
import { Credits, OpeningCredits, QUOTE_LIFETIME_MS } from "./Credits.ts"
import { Reads } from "./Reads.ts"

const ConnectorRow = Schema.Struct({ connector: Schema.String, state: Schema.String, n: Schema.NumberFromString })
const decodeConnectors = Schema.decodeUnknown(Schema.Array(ConnectorRow))

/** What a workspace has and may spend: credits and their ledger, the hour's reads, its plan and connections. */
export class Account extends Effect.Service<Account>()("brein/budget/Account", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const credits = yield* Credits
    const reads = yield* Reads
    const opening = yield* OpeningCredits
    const stamp = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString())

    const usage = Effect.fn("Account.usage")(function* (principal: Principal, recent: number) {
      const [ledger, hour, at] = yield* Effect.all([credits.usage(principal, recent), reads.usage(principal), stamp])
      return {
        ref: `usage:${principal.workspaceId}@${at}`,
        workspace: principal.workspaceName,
        plan: principal.plan,
        credits: ledger,
        reads: hour
      }
    })

    const connectorsOf = Effect.fn("Account.connectors")(function* (principal: Principal) {
      const rows = yield* sql`SELECT connector, state, count(*) AS n FROM connections WHERE workspace_id = ${principal.workspaceId}
        GROUP BY connector, state ORDER BY connector, state`.pipe(Effect.flatMap(decodeConnectors), Effect.orDie)
      const byConnector = new Map<string, { connections: number; states: Record<string, number> }>()
      for (const row of rows) {
        const entry = byConnector.get(row.connector) ?? { connections: 0, states: {} }
        entry.connections += row.n
        entry.states[row.state] = row.n
        byConnector.set(row.connector, entry)
      }
      return [...byConnector].map(([connector, entry]) => ({ connector, ...entry }))
    })

    const account = Effect.fn("Account.account")(function* (principal: Principal) {
      const [balance, hour, connectors, at] = yield* Effect.all([
        credits.balance(principal),
        reads.usage(principal),
        connectorsOf(principal),
        stamp
      ])
      return {
        ref: `account:${principal.workspaceId}@${at}`,
        workspace: { id: principal.workspaceId, name: principal.workspaceName, plan: principal.plan },
        limits: {
          reads_per_hour: reads.limitOf(principal.plan),
          opening_credits: opening[principal.plan],
          quote_minutes: QUOTE_LIFETIME_MS / 60_000
        },
        credits_balance: balance,
        reads: hour,
        connectors
      }
    })

    return { usage, account }
  }),
  dependencies: [Credits.Default, Reads.Default]
}) {}
