import { Context, Data, Effect, Either, Layer, Option, ParseResult, Schema } from "effect"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import { ChatRequestBody } from "../../schema/luna/ChatWire.ts"

export interface FakeToolCall {
  readonly id: string
  readonly name: string
  readonly arguments: string
}

export interface FakeUsage {
  readonly prompt_tokens: number
  readonly completion_tokens: number
}

/** What the fake answers one request with. */
export type FakeAnswer = Data.TaggedEnum<{
  Reply: { readonly content: string | null; readonly toolCalls: ReadonlyArray<FakeToolCall>; readonly usage?: FakeUsage }
  Status: { readonly status: number; readonly message: string; readonly retryAfter?: string }
  Malformed: { readonly body: string }
  /** Never answers: the client has to give up. */
  Hang: {}
}>
export const FakeAnswer = Data.taggedEnum<FakeAnswer>()

export const text = (content: string, usage?: FakeUsage) =>
  FakeAnswer.Reply({ content, toolCalls: [], ...(usage === undefined ? {} : { usage }) })
export const toolCalls = (...calls: ReadonlyArray<FakeToolCall>) => FakeAnswer.Reply({ content: null, toolCalls: calls })
export const status = (code: number, message = `fake status ${code}`, retryAfter?: string) =>
  FakeAnswer.Status({ status: code, message, ...(retryAfter === undefined ? {} : { retryAfter }) })
export const malformed = (body = `{"id":"chatcmpl-x","model":"m","choices":"none"}`) => FakeAnswer.Malformed({ body })
export const hang = FakeAnswer.Hang()

/** One request as the fake received it; `body` is absent when it was not a valid chat-completions request. */
export interface SeenRequest {
  readonly method: string
  readonly path: string
  readonly authorization: string | undefined
  readonly model: string
  readonly body: ChatRequestBody | undefined
}

export interface FakeModelServerApi {
  /** Up to the API version: requests go to `${baseUrl}/chat/completions`. */
  readonly baseUrl: string
  /** Answers for the next requests naming `model`, one each, in order. */
  readonly script: (model: string, ...answers: ReadonlyArray<FakeAnswer>) => Effect.Effect<void>
  /** The answer once the script for `model` is used up (without one: 404, the model does not exist). */
  readonly always: (model: string, answer: FakeAnswer | ((request: ChatRequestBody) => FakeAnswer)) => Effect.Effect<void>
  readonly requests: Effect.Effect<ReadonlyArray<SeenRequest>>
  readonly requestsFor: (model: string) => Effect.Effect<ReadonlyArray<SeenRequest>>
}

const decodeRequest = Schema.decodeUnknownEither(Schema.parseJson(ChatRequestBody))
const modelOf = Schema.decodeUnknownOption(Schema.parseJson(Schema.Struct({ model: Schema.String })))

const send = (res: ServerResponse, code: number, body: string, headers: Record<string, string> = {}) => {
  res.writeHead(code, { "content-type": "application/json", ...headers })
  res.end(body)
}

const completion = (n: number, model: string, reply: Extract<FakeAnswer, { _tag: "Reply" }>) =>
  JSON.stringify({
    id: `chatcmpl-${n}`,
    object: "chat.completion",
    created: 1_767_225_600,
    model,
    system_fingerprint: "fp_fake",
    choices: [{
      index: 0,
      message: {
        role: "assistant",
        content: reply.content,
        ...(reply.toolCalls.length === 0
          ? {}
          : {
            tool_calls: reply.toolCalls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } }))
          })
      },
      finish_reason: reply.toolCalls.length === 0 ? "stop" : "tool_calls"
    }],
    ...(reply.usage === undefined
      ? {}
      : { usage: { ...reply.usage, total_tokens: reply.usage.prompt_tokens + reply.usage.completion_tokens } })
  })

const makeFakeModelServer = Effect.gen(function* () {
  const seen: Array<SeenRequest> = []
  const scripts = new Map<string, Array<FakeAnswer>>()
  const standing = new Map<string, FakeAnswer | ((request: ChatRequestBody) => FakeAnswer)>()

  const next = (request: ChatRequestBody): FakeAnswer => {
    const scripted = scripts.get(request.model)?.shift()
    if (scripted !== undefined) return scripted
    const answer = standing.get(request.model)
    if (answer === undefined) return status(404, `The model \`${request.model}\` does not exist`)
    return typeof answer === "function" ? answer(request) : answer
  }

  const answer = (req: IncomingMessage, res: ServerResponse, raw: string) => {
    const decoded = decodeRequest(raw)
    const path = req.url ?? ""
    seen.push({
      method: req.method ?? "",
      path,
      authorization: req.headers.authorization,
      model: Option.match(modelOf(raw), { onNone: () => "", onSome: (body) => body.model }),
      body: Either.getOrUndefined(decoded)
    })
    if (req.method !== "POST" || path !== "/v1/chat/completions") {
      return send(res, 404, JSON.stringify({ error: { message: `no route ${req.method} ${path}` } }))
    }
    if (Either.isLeft(decoded)) {
      return send(res, 400, JSON.stringify({ error: { message: ParseResult.TreeFormatter.formatErrorSync(decoded.left) } }))
    }
    const reply = next(decoded.right)
    switch (reply._tag) {
      case "Reply":
        return send(res, 200, completion(seen.length, decoded.right.model, reply))
      case "Status":
        return send(
          res,
          reply.status,
          JSON.stringify({ error: { message: reply.message, type: "fake_error" } }),
          reply.retryAfter === undefined ? {} : { "retry-after": reply.retryAfter }
        )
      case "Malformed":
        return send(res, 200, reply.body)
      case "Hang":
        return
    }
  }

  const server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => answer(req, res, Buffer.concat(chunks).toString("utf8")))
  })
  const port = yield* Effect.acquireRelease(
    Effect.async<number>((resume) => {
      server.once("error", (error) => resume(Effect.die(error)))
      server.listen(0, "127.0.0.1", () => {
        const address = server.address()
        resume(typeof address === "object" && address !== null ? Effect.succeed(address.port) : Effect.dieMessage("no port"))
      })
    }),
    () =>
      Effect.async<void>((resume) => {
        // Hanging answers hold their sockets open: close them, or close() waits forever.
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )

  return FakeModelServer.of({
    baseUrl: `http://127.0.0.1:${port}/v1`,
    script: (model, ...answers) => Effect.sync(() => void scripts.set(model, [...(scripts.get(model) ?? []), ...answers])),
    always: (model, reply) => Effect.sync(() => void standing.set(model, reply)),
    requests: Effect.sync(() => [...seen]),
    requestsFor: (model) => Effect.sync(() => seen.filter((r) => r.model === model))
  })
})

/** A chat-completions server on a free local port, scripted per model; closed with its scope. */
export class FakeModelServer extends Context.Tag("test/FakeModelServer")<FakeModelServer, FakeModelServerApi>() {
  static readonly make = makeFakeModelServer
  static readonly layer = Layer.scoped(FakeModelServer, makeFakeModelServer)
}
