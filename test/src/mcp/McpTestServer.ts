import { HttpServer } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import {
  type CallToolResult,
  Client,
  InMemoryTransport,
  type RequestOptions,
  StreamableHTTPClientTransport,
  type Tool
} from "@modelcontextprotocol/client"
import { Array as Arr, Effect, Layer, Option, Redacted, Schema } from "effect"
import { servicesWith } from "../../../layers/App.ts"
import type { Unauthorized } from "../../../schema/Errors.ts"
import type { Principal } from "../../../schema/Principal.ts"
import type { Plan } from "../../../schema/tools/Definition.ts"
import { CoreConnector, EchoConnector } from "../../../services/connectors/Core.ts"
import { connector } from "../../../services/tools/Source.ts"
import { action, connectedAction } from "../../../services/tools/Tool.ts"
import { Workspaces } from "../../../services/workspace/Workspaces.ts"
import { listen, serveOn } from "../../../src/http/Server.ts"
import { serveMcpStdio } from "../../../src/mcp/Stdio.ts"
import { TestDatabase } from "../../support/TestDatabase.ts"

const pure = { readOnly: true, destructive: false, idempotent: true, openWorld: false } as const

/** In-process only: must never be listed or callable over MCP. */
export const HiddenConnector = connector({
  id: "hidden",
  label: "Hidden",
  plan: "free",
  requiresConnection: false,
  tools: [
    action({
      id: "hidden.secret.peek",
      family: "hidden",
      label: "Secreto",
      description: "An in-process tool that peeks at a secret",
      plan: "free",
      hints: pure,
      cost: { kind: "free" },
      level: 0,
      stages: [],
      external: false,
      input: Schema.Struct({}),
      output: Schema.Struct({ secret: Schema.String }),
      handler: () => Effect.succeed({ secret: "hidden" })
    })
  ]
})

/** A connector behind a connection: answers the connection the executor authorized. */
export const VaultConnector = connector({
  id: "vault",
  label: "Vault",
  plan: "free",
  requiresConnection: true,
  tools: [
    connectedAction({
      id: "vault.item.get",
      family: "vault",
      label: "Item de bóveda",
      description: "Reads an item of a vault connection",
      plan: "free",
      hints: { readOnly: true, destructive: false, idempotent: true, openWorld: true },
      cost: { kind: "free" },
      level: 0,
      stages: [],
      input: Schema.Struct({ item: Schema.String }),
      output: Schema.Struct({ item: Schema.String, connection: Schema.NullOr(Schema.String) }),
      handler: (input, ctx) => Effect.succeed({ item: input.item, connection: ctx.connectionId ?? null })
    })
  ]
})

/** Reports one progress step per unit, the way a long sync would. */
export const StepsConnector = connector({
  id: "steps",
  label: "Steps",
  plan: "free",
  requiresConnection: false,
  tools: [
    action({
      id: "steps.count.run",
      family: "steps",
      label: "Contar",
      description: "Counts to n, reporting progress at every step",
      plan: "free",
      hints: pure,
      cost: { kind: "free" },
      level: 0,
      stages: [],
      input: Schema.Struct({ n: Schema.Int }),
      output: Schema.Struct({ counted: Schema.Int }),
      handler: (input, ctx) =>
        Effect.forEach(Arr.range(1, input.n), (i) => ctx.progress({ progress: i, total: input.n, message: `step ${i}` }), {
          discard: true
        }).pipe(Effect.as({ counted: input.n }))
    })
  ]
})

/** The app exactly as `serve` mounts it (REST + /mcp) on a random port, over core, echo and the test connectors. */
export const McpTest = serveOn(listen(0)).pipe(
  Layer.provideMerge(servicesWith([CoreConnector, EchoConnector, HiddenConnector, VaultConnector, StepsConnector])),
  Layer.provideMerge(TestDatabase)
)

export type Era = "legacy" | "modern"
export const ERAS: ReadonlyArray<Era> = ["legacy", "modern"]

export const mcpUrl = Effect.map(
  HttpServer.HttpServer,
  (server) => new URL(server.address._tag === "TcpAddress" ? `http://127.0.0.1:${server.address.port}/mcp` : "http://127.0.0.1/mcp")
)

export const issueKey = (workspace: string, plan: Plan) =>
  Effect.flatMap(Workspaces, (w) => w.issueKey({ workspace, plan: Option.some(plan) })).pipe(
    Effect.map((issued) => Redacted.value(issued.key))
  )

const clientOptions = (era: Era) => era === "modern" ? { versionNegotiation: { mode: "auto" as const } } : {}

/** The real MCP client over Streamable HTTP; `legacy` runs `initialize`, `modern` negotiates with `server/discover`. */
export const connect = (era: Era, headers: Record<string, string>) =>
  Effect.acquireRelease(
    Effect.gen(function* () {
      const url = yield* mcpUrl
      const client = new Client({ name: "brein-test", version: "0.0.0" }, clientOptions(era))
      yield* Effect.tryPromise(() => client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } })))
      return client
    }),
    (client) => Effect.promise(() => client.close())
  )

/** `brein mcp`'s server in process for `principal`, over a linked pair of transports, with a client of `era` on the other end. */
export const connectInProcess = (era: Era, principal: Principal, current?: Effect.Effect<Principal, Unauthorized>) =>
  Effect.gen(function* () {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    yield* serveMcpStdio(principal, { transport: serverSide, ...(current === undefined ? {} : { current }) })
    const client = new Client({ name: "brein-test", version: "0.0.0" }, clientOptions(era))
    yield* Effect.acquireRelease(Effect.promise(() => client.connect(clientSide)), () => Effect.promise(() => client.close()))
    return client
  })

export const bearer = (key: string) => ({ Authorization: `Bearer ${key}` })

export const listTools = (client: Client) =>
  Effect.promise(() => client.listTools()).pipe(Effect.map((result): ReadonlyArray<Tool> => result.tools))

export const callTool = (client: Client, name: string, args: Record<string, unknown>, options?: RequestOptions) =>
  Effect.promise((): Promise<CallToolResult> => client.callTool({ name, arguments: args }, options))

export const callToolFailure = (client: Client, name: string, args: Record<string, unknown>) =>
  Effect.flip(Effect.tryPromise(() => client.callTool({ name, arguments: args })))

const ErrorText = Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.Unknown }))

/** The typed error of an `isError` result: in its text content, never as structured content. */
export const errorOf = (result: CallToolResult) =>
  Effect.gen(function* () {
    if (result.isError !== true) return yield* Effect.dieMessage("expected an isError result")
    if (result.structuredContent !== undefined) return yield* Effect.dieMessage("an isError result carries no structuredContent")
    const [first] = result.content
    return yield* Schema.decodeUnknown(ErrorText)(first?.type === "text" ? first.text : "")
  }).pipe(Effect.orDie)

export const auditRowOf = (requestId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ toolId: string; surface: string; outcome: string; errorTag: string | null; connectionId: string | null }>`
      SELECT tool_id, surface, outcome, error_tag, connection_id FROM audit_log WHERE request_id = ${requestId}`
  )

export const lastAuditRow = (toolId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ surface: string; outcome: string; errorTag: string | null }>`
      SELECT surface, outcome, error_tag FROM audit_log WHERE tool_id = ${toolId} ORDER BY at DESC, seq DESC LIMIT 1`
  )
