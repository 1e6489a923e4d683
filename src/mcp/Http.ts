import { createServer, IncomingMessage, ServerResponse } from "node:http"
import { type AuthInfo, createMcpHandler, type McpRequestContext } from "@modelcontextprotocol/server"
import { Cause, Effect, Either, Exit, Option, Runtime, Schema } from "effect"
import { InternalError, ServiceUnavailable } from "../../schema/Errors.ts"
import { transientIn } from "../../services/Database.ts"
import { Principal } from "../../schema/Principal.ts"
import { bearerToken, type ErrorAnswer, errorAnswer, Gate, type GateError, hasBody, MAX_BODY_BYTES } from "../http/Gate.ts"
import { rateLimitedRpc } from "./RateLimitedRpc.ts"
import { makeMcpSurface } from "./Surface.ts"

type NodeHandler = (request: IncomingMessage, response: ServerResponse) => void

const isPrincipal = Schema.is(Principal)

const isMcpPath = (url: string | undefined) => url === "/mcp" || url?.startsWith("/mcp?") === true

const sendJson = (response: ServerResponse, answer: ErrorAnswer) => {
  const text = JSON.stringify(answer.body)
  response.writeHead(answer.status, { ...answer.headers, "content-type": "application/json", "content-length": String(Buffer.byteLength(text)) }).end(text)
}

const authInfoFor = (principal: Principal, token: string): AuthInfo => ({
  token,
  clientId: principal.keyId ?? principal.workspaceId,
  scopes: [],
  extra: { principal }
})

const headersOf = (request: IncomingMessage) => {
  const headers = new Headers()
  const raw = request.rawHeaders
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i] ?? "", raw[i + 1] ?? "")
  return headers
}

const parseJson = (text: string) => Either.getRight(Either.try((): unknown => JSON.parse(text)))

// a reader loop: `Response.text()` costs several times more for a small JSON body
const readAll = async (stream: ReadableStream<Uint8Array>) => {
  const reader = stream.getReader()
  const chunks: Array<Uint8Array> = []
  for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value)
  return Buffer.concat(chunks)
}

const drained = (response: ServerResponse) =>
  new Promise<void>((resolve) => void response.once("drain", resolve).once("close", resolve))

/** Event frames as they come; a client that leaves cancels the stream, which ends the SDK's exchange. */
const streamTo = async (response: ServerResponse, stream: ReadableStream<Uint8Array>) => {
  const reader = stream.getReader()
  response.once("close", () => void reader.cancel().catch(() => undefined))
  for (let next = await reader.read(); !next.done; next = await reader.read()) {
    if (!response.write(next.value) && !response.destroyed) await drained(response)
  }
  response.end()
}

/** A web `Response` onto the Node response: JSON in one write, event streams as they come. */
const reply = async (response: ServerResponse, answer: Response) => {
  const headers: Record<string, string> = {}
  answer.headers.forEach((value, name) => void (headers[name] = value))
  if (answer.body === null) return void response.writeHead(answer.status, headers).end()
  if (headers["content-type"]?.startsWith("text/event-stream") === true) {
    return streamTo(response.writeHead(answer.status, headers), answer.body)
  }
  const body = await readAll(answer.body)
  response.writeHead(answer.status, { ...headers, "content-length": String(body.length) }).end(body)
}

/**
 * Streamable HTTP at /mcp, both protocol eras, behind the same gate as the REST API. It is served from
 * the Node server directly: the trip through the Effect HTTP stack and back cost more than the call.
 * This is the one bridge between the SDK's promises and the Effect runtime captured here.
 */
export const makeMcpHttp = Effect.gen(function* () {
  const gate = yield* Gate
  const surface = yield* makeMcpSurface
  const runtime = yield* Effect.runtime<never>()
  const runFork = Runtime.runFork(runtime)
  const runExit = Runtime.runPromiseExit(runtime)
  const runPromise = Runtime.runPromise(runtime)
  const factory = (ctx: McpRequestContext) => {
    const principal = ctx.authInfo?.extra?.["principal"]
    return isPrincipal(principal)
      ? surface.server(principal)
      : Promise.reject(new Error("an MCP request reached the server without an authenticated principal"))
  }
  const handler = createMcpHandler(factory, {
    maxRequestBodySize: MAX_BODY_BYTES,
    onerror: (error) => void runFork(Effect.logDebug("MCP request rejected", error.message))
  })
  yield* Effect.addFinalizer(() => Effect.promise(() => handler.close()))

  /** The gate, in the order the REST API runs it: origin, size and type, key; then the body within the limit. */
  const admit = (request: IncomingMessage) =>
    Effect.gen(function* () {
      yield* gate.sameSite(request.headers)
      yield* gate.admit(request.headers)
      const principal = yield* gate.authenticateFrom(request.socket.remoteAddress, request.headers)
      const body = hasBody(request.headers) ? yield* gate.readBody(request) : undefined
      return { principal, body }
    })

  /** A refusal; over the rate limit, a JSON-RPC error that answers the request's id (its body is read for it). */
  const refusal = (request: IncomingMessage, error: GateError): Effect.Effect<ErrorAnswer> => {
    if (error._tag !== "RateLimited") return Effect.succeed(errorAnswer(error))
    const body = hasBody(request.headers) ? Effect.option(gate.readBody(request)) : Effect.succeedNone
    return Effect.map(body, (read) => rateLimitedRpc(error, Option.getOrUndefined(Option.map(read, (bytes) => bytes.toString("utf8")))))
  }

  const serve = async (request: IncomingMessage, response: ServerResponse) => {
    const admitted = await runExit(admit(request))
    if (Exit.isFailure(admitted)) {
      const refused = Cause.failureOption(admitted.cause)
      const unavailable = Option.isNone(refused) && Option.isSome(transientIn(admitted.cause))
      if (unavailable) runFork(Effect.logWarning("database unavailable: answering 503", admitted.cause))
      else if (Option.isNone(refused)) runFork(Effect.logError("MCP request failed unexpectedly", admitted.cause))
      return sendJson(response, await runPromise(refusal(request, Option.getOrElse(refused, (): GateError => unavailable ? ServiceUnavailable.database : InternalError.unexpected))))
    }
    const { principal, body } = admitted.value
    const text = body?.toString("utf8")
    const parsed = text === undefined ? Option.none() : parseJson(text)
    const web = new Request(`http://${request.headers.host ?? "localhost"}${request.url ?? "/mcp"}`, {
      method: request.method ?? "GET",
      headers: headersOf(request),
      // with a parsed body the SDK reads nothing from the request; otherwise it answers the bad body itself
      ...(text !== undefined && Option.isNone(parsed) ? { body: text } : {})
    })
    const authInfo = authInfoFor(principal, bearerToken(request.headers.authorization))
    await reply(response, await handler.fetch(web, Option.isSome(parsed) ? { authInfo, parsedBody: parsed.value } : { authInfo }))
  }

  return (request: IncomingMessage, response: ServerResponse) =>
    void serve(request, response).catch((error: unknown) => {
      runFork(Effect.logError("MCP request failed", error))
      if (response.headersSent) response.destroy()
      else response.writeHead(500).end()
    })
})

/** A Node server that hands /mcp requests to `mcp`; all others reach its 'request' listeners (the Effect app). */
export const mcpFirstServer = (mcp: NodeHandler) => {
  const server = createServer()
  const emit = server.emit.bind(server)
  server.emit = (event: string, ...args: Array<unknown>) => {
    const [request, response] = args
    if (event === "request" && request instanceof IncomingMessage && response instanceof ServerResponse && isMcpPath(request.url)) {
      mcp(request, response)
      return true
    }
    return emit(event, ...args)
  }
  return server
}
