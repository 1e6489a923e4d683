import { type CallToolResult, type LoggingLevel, ProtocolError, ProtocolErrorCode, type ServerContext } from "@modelcontextprotocol/server"
import { Cause, Data, Effect, Exit, Option, Schema, type Tracer } from "effect"
import { ServiceUnavailable, type ToolNotFound, type Unauthorized } from "../../schema/Errors.ts"
import { isToolId } from "../../schema/Ids.ts"
import type { CallContext, Principal } from "../../schema/Principal.ts"
import { isTransient } from "../../services/Database.ts"
import { Executor } from "../../services/pipeline/Executor.ts"
import { SyncJobs } from "../../services/sync/SyncJobs.ts"
import { Registry } from "../../services/tools/Registry.ts"
import { connectionId as validConnection, shallow } from "../http/Gate.ts"
import { promiseRunner, type RunOptions } from "../http/NodeBridge.ts"
import { packageVersion } from "../PackageVersion.ts"
import { makeCatalog } from "./Catalog.ts"
import { ParamsServer } from "./ParamsServer.ts"
import { failure, success } from "./Results.ts"
import { SEARCH_DOCS } from "./SearchDocs.ts"
import { type LogLine, withSyncLog } from "./SyncLog.ts"

class McpCallDied extends Data.TaggedError("McpCallDied") {}

const INSTRUCTIONS = "brein's tools, named by their registry ids. Every call is audited and answers { data, meta }. " +
  "Call search_docs with { tool } to see a tool's plane, plan, cost and scope before calling it. " +
  "Tools that read a connection take it from the X-Connect-Connection header or a `connection` argument."

/** A JSON object as JSON.parse made it, the same object: a field named `__proto__` stays one of its fields. */
const Arguments = Schema.declare(
  (value: unknown): value is Readonly<Record<string, unknown>> => typeof value === "object" && value !== null && !Array.isArray(value)
)

/**
 * Ours rather than the SDK's, whose copy of `arguments` drops a field named `__proto__`: the call then ran
 * without it, where the executor refuses it by name (`input.__proto__ is not a field…`), as over REST. The
 * SDK has checked the request's shape before.
 */
const CallParamsSchema = Schema.Struct({ name: Schema.String, arguments: Schema.optional(Arguments) })
type CallParams = typeof CallParamsSchema.Type
const CallParams = Schema.standardSchemaV1(CallParamsSchema)

/** Progress notifications for a client that sent a progressToken; best effort, never fails the call. */
const progressFor = (ctx: ServerContext): CallContext["onProgress"] => {
  const progressToken = ctx.mcpReq._meta?.progressToken
  if (progressToken === undefined) return undefined
  return (update) =>
    Effect.tryPromise(() => ctx.mcpReq.notify({ method: "notifications/progress", params: { ...update, progressToken } })).pipe(
      Effect.ignore
    )
}

const SEVERITY = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"] as const satisfies ReadonlyArray<
  LoggingLevel
>

/** Ours rather than the SDK's, whose refusal of a level is an internal error (-32603) quoting its schema whole. */
const SetLevelParams = Schema.standardSchemaV1(Schema.Struct({
  level: Schema.Literal(...SEVERITY).annotations({
    message: () => ({ message: `must be one of ${SEVERITY.join(", ")}`, override: true })
  })
}))
const isSync = (toolId: string) => toolId.endsWith(".conexion.sincronizar")

/**
 * An unknown tool is a JSON-RPC error (-32602), as the spec asks; the typed error rides in `data`. Its
 * hint (the tool it probably meant) is in the message too, which is what a client shows.
 */
const protocolErrorOf = (error: ToolNotFound | McpCallDied | Unauthorized) =>
  error._tag === "ToolNotFound"
    ? new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      error.hint === undefined ? error.message : `${error.message}. ${error.hint}`,
      { _tag: error._tag, toolId: error.toolId, message: error.message, ...(error.hint === undefined ? {} : { hint: error.hint }) }
    )
    : error._tag === "Unauthorized"
    // a connection's key revoked while it is open: its calls are refused as a request the server will not serve
    ? new ProtocolError(ProtocolErrorCode.InvalidRequest, error.message, { _tag: error._tag, message: error.message })
    : new ProtocolError(ProtocolErrorCode.InternalError, "the tool call failed unexpectedly")

/**
 * The MCP surface over the registry and the executor. Built once; `server(principal)` is cheap and
 * is called per HTTP request (stateless serving) or once per stdio connection.
 */
export const makeMcpSurface = Effect.gen(function* () {
  const registry = yield* Registry
  if (Option.isSome(registry.get(SEARCH_DOCS))) {
    return yield* Effect.dieMessage(`a registry tool may not be named ${SEARCH_DOCS}: MCP reserves it`)
  }
  const executor = yield* Executor
  const serverInfo = { name: "brein", version: yield* packageVersion }
  // Optional so that a surface over a registry without connectors needs no sync tables.
  const jobs = yield* Effect.serviceOption(SyncJobs)
  // Served statelessly, a server lives for one request: the level a key asked for outlives it here.
  const levels = new Map<string, LoggingLevel>()
  const keyOf = (principal: Principal) => principal.keyId ?? principal.workspaceId

  /** Log notifications at or above the level the client set; the SDK adds the 2026 era's per-request level. */
  const logTo = (principal: Principal, ctx: ServerContext) => (line: LogLine) => {
    const threshold = levels.get(keyOf(principal))
    if (threshold !== undefined && SEVERITY.indexOf(line.level) < SEVERITY.indexOf(threshold)) return Effect.void
    return Effect.tryPromise(() => ctx.mcpReq.log(line.level, line.message, "brein")).pipe(Effect.ignore)
  }
  const runPromise = yield* promiseRunner
  const catalog = makeCatalog(registry)

  const searchDocs = (params: CallParams) =>
    catalog.searchDocs(params.arguments).pipe(Effect.match({ onSuccess: success, onFailure: failure }))

  const execute = (principal: Principal, params: CallParams, ctx: ServerContext) =>
    executeTool(principal, params, ctx).pipe(
      Effect.catchIf((error) => error._tag !== "ToolNotFound", (error) => Effect.succeed(failure(error))),
      // The executor's one ToolNotFound is its resolve step's, of params.name: a handler cannot fail with it
      // (HandlerError has no ToolNotFound). It guessed among the registry's tools; over MCP, search_docs is a name too.
      Effect.mapError(() => catalog.notFound(params.name))
    )

  // untraced: Executor.call is the span below the request's; one more per call cost measurably on bench:mcp
  const executeTool = Effect.fnUntraced(function* (principal: Principal, params: CallParams, ctx: ServerContext) {
    const args = params.arguments ?? {}
    yield* shallow(args, "input")
    const { connection, ...rest } = args
    // Only a tool that takes a connection reads the header: an unknown tool is ToolNotFound (the executor's
    // first step) whatever the header holds, and a tool without a connection ignores it.
    const takesConnection = catalog.entries.get(params.name)?.acceptsConnection === true
    const viaArgument = connection !== undefined && takesConnection
    const connectionId = viaArgument
      ? yield* validConnection(connection, "input.connection")
      : takesConnection
      ? yield* validConnection(ctx.http?.req?.headers.get("x-connect-connection") ?? undefined, "X-Connect-Connection")
      : undefined
    const context: CallContext = { surface: "mcp", principal, connectionId, onProgress: progressFor(ctx) }
    const called = executor.call(params.name, viaArgument ? rest : args, context)
    return success(
      yield* (connectionId !== undefined && isSync(params.name) && Option.isSome(jobs)
        ? withSyncLog(jobs.value, connectionId, logTo(principal, ctx), called)
        : called)
    )
  })

  // A malformed name never reaches the executor (nor, through it, the audit log): -32602, as for an unknown tool.
  const call = (principal: Principal, params: CallParams, ctx: ServerContext): Effect.Effect<CallToolResult, ToolNotFound> =>
    params.name === SEARCH_DOCS
      ? searchDocs(params)
      : isToolId(params.name)
      ? execute(principal, params, ctx)
      : Effect.fail(catalog.notFound(params.name))

  /** A database away (the call's, or the key's lookup before it) is the tool error ServiceUnavailable; any other defect, -32603. */
  const answered = <E>(effect: Effect.Effect<CallToolResult, E>): Effect.Effect<CallToolResult, E | McpCallDied> =>
    effect.pipe(
      Effect.catchAllDefect((defect) =>
        isTransient(defect)
          ? Effect.logWarning("database unavailable: the MCP call answers ServiceUnavailable", Cause.die(defect)).pipe(
            Effect.as(failure(ServiceUnavailable.database))
          )
          : Effect.logError("MCP tools/call died", Cause.die(defect)).pipe(Effect.zipRight(Effect.fail(new McpCallDied())))
      )
    )

  // Over HTTP, a call's spans sit below its request's span, which the SDK's promises do not carry. The
  // SDK aborts the request's signal when the client cancels it (notifications/cancelled, on stdio) or
  // its transport closes (stdio closed; over HTTP, /mcp closes the request's server when its client
  // leaves before the answer): the call is then interrupted, and the SDK sends no answer for it.
  const run = (effect: Effect.Effect<CallToolResult, ToolNotFound | McpCallDied | Unauthorized>, options: RunOptions) =>
    runPromise(effect, options).then((exit) =>
      Exit.isSuccess(exit)
        ? exit.value
        : Promise.reject(protocolErrorOf(Option.getOrElse(Cause.failureOption(exit.cause), () => new McpCallDied())))
    )

  /**
   * `current`, for a connection that outlives a request (stdio): the principal again before each call, so a key
   * revoked meanwhile is refused from its next call (an HTTP request authenticates on its own).
   */
  const server = (principal: Principal, parent?: Tracer.AnySpan, current?: Effect.Effect<Principal, Unauthorized>) => {
    const mcp = new ParamsServer(serverInfo, { capabilities: { tools: { listChanged: false }, logging: {} }, instructions: INSTRUCTIONS })
    mcp.setRequestHandler("logging/setLevel", { params: SetLevelParams }, (params) => {
      levels.set(keyOf(principal), params.level)
      return {}
    })
    mcp.setRequestHandler("tools/list", () => catalog.listing)
    mcp.setRequestHandler(
      "tools/call",
      { params: CallParams },
      (params, ctx) =>
        run(
          answered(current === undefined ? call(principal, params, ctx) : Effect.flatMap(current, (now) => call(now, params, ctx))),
          { parent, signal: ctx.mcpReq.signal }
        ).then((result) => mcp.projectCallToolResult(result, catalog.entries.get(params.name)?.outputSchema))
    )
    return mcp
  }

  return { server } as const
})
