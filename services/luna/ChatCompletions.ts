import { HttpClient, type HttpClientError, HttpClientRequest, type HttpClientResponse } from "@effect/platform"
import { Data, Duration, Effect, Option, type ParseResult, Redacted, Schedule, Schema } from "effect"
import { shortened } from "../../schema/Length.ts"
import { ChatErrorBody, ChatRequestBody, ChatResponseBody } from "../../schema/luna/ChatWire.ts"

/** One OpenAI-compatible endpoint and the model asked of it. */
export interface ChatEndpoint {
  /** Up to the API version, e.g. https://api.deepseek.com or https://api.openai.com/v1. */
  readonly baseUrl: string
  /** Left out for endpoints that take no key (a local server). */
  readonly apiKey?: Redacted.Redacted<string>
  readonly model: string
}

export interface ChatPolicy {
  /** Per attempt. */
  readonly timeout: Duration.Duration
  /** The first wait before a retry; it doubles, with jitter. */
  readonly backoff: Duration.Duration
  readonly retries: number
  /** The longest `Retry-After` waited for; a longer one is not retried (the fallback answers sooner). */
  readonly retryAfterCap: Duration.Duration
}

export const CHAT_POLICY_DEFAULTS: ChatPolicy = {
  timeout: Duration.seconds(60),
  backoff: Duration.millis(500),
  retries: 2,
  retryAfterCap: Duration.seconds(10)
}

/**
 * One endpoint did not answer. `retryable`: a 429, a 5xx or a dropped connection, which may pass. A timeout is
 * not retried: another full wait would hold the turn for minutes, so the fallback is tried at once.
 */
export class ChatCallFailed extends Data.TaggedError("ChatCallFailed")<{
  readonly model: string
  readonly reason: "status" | "timeout" | "transport" | "body"
  readonly status?: number
  readonly retryable: boolean
  readonly retryAfter?: Duration.Duration
  readonly detail: string
}> {
  override get message() {
    return this.status === undefined ? this.detail : `HTTP ${this.status}: ${this.detail}`
  }
}

/** 500 ms, then 1 s (jittered), only while the failure may pass; a 429's `Retry-After` is waited for when it is under the cap. */
export const transientRetry = (policy: ChatPolicy) =>
  Schedule.exponential(policy.backoff).pipe(
    Schedule.jittered,
    Schedule.intersect(Schedule.recurs(policy.retries)),
    Schedule.intersect(Schedule.identity<ChatCallFailed>()),
    Schedule.whileInput((failure: ChatCallFailed) =>
      failure.retryable &&
      (failure.retryAfter === undefined || Duration.lessThanOrEqualTo(failure.retryAfter, policy.retryAfterCap))
    ),
    Schedule.modifyDelay(([, failure], delay) => failure.retryAfter === undefined ? delay : Duration.max(delay, failure.retryAfter))
  )

const MAX_DETAIL = 300
const clip = (text: string) => shortened(text, MAX_DETAIL)

const decodeErrorBody = Schema.decodeUnknownOption(Schema.parseJson(ChatErrorBody))

/** Seconds only; an HTTP-date `Retry-After` counts as absent. */
const retryAfterOf = (response: HttpClientResponse.HttpClientResponse) => {
  const seconds = Number(response.headers["retry-after"] ?? Number.NaN)
  return Number.isFinite(seconds) && seconds >= 0 ? { retryAfter: Duration.seconds(seconds) } : {}
}

type Failed = (fields: Omit<ConstructorParameters<typeof ChatCallFailed>[0], "model">) => ChatCallFailed

const refused = (failed: Failed, response: HttpClientResponse.HttpClientResponse) =>
  Effect.flatMap(Effect.option(response.text), (text) => {
    const said = Option.flatMap(text, decodeErrorBody).pipe(
      Option.map((body) => body.error.message),
      Option.orElse(() => Option.filter(text, (t) => t.trim() !== "")),
      Option.getOrElse(() => "no explanation in the body")
    )
    const status = response.status
    return Effect.fail(failed({
      reason: "status",
      status,
      retryable: status === 429 || status >= 500,
      ...(status === 429 ? retryAfterOf(response) : {}),
      detail: said
    }))
  })

const unreadable = (failed: Failed) => (error: HttpClientError.ResponseError | ParseResult.ParseError) =>
  failed({
    reason: "body",
    retryable: false,
    detail: error._tag === "ParseError" ? `the answer is not a chat completion: ${error.message}` : "the answer is not JSON"
  })

const read = (failed: Failed) => (response: HttpClientResponse.HttpClientResponse) =>
  response.status >= 200 && response.status < 300
    ? response.json.pipe(Effect.flatMap(Schema.decodeUnknown(ChatResponseBody)), Effect.mapError(unreadable(failed)))
    : refused(failed, response)

export const makeChatCompletions = Effect.fn("ChatCompletions.make")(function* (policy: ChatPolicy) {
  const http = yield* HttpClient.HttpClient
  const encode = HttpClientRequest.schemaBodyJson(ChatRequestBody)

  const complete = Effect.fn("ChatCompletions.complete")(function* (endpoint: ChatEndpoint, body: ChatRequestBody) {
    yield* Effect.annotateCurrentSpan({ model: endpoint.model, "server.url": endpoint.baseUrl })
    const key = endpoint.apiKey
    // Providers have echoed a key in their error text: it is taken out of whatever is kept.
    const scrub = (text: string) =>
      key === undefined || Redacted.value(key) === "" ? text : text.replaceAll(Redacted.value(key), "[redacted]")
    const failed: Failed = (fields) => new ChatCallFailed({ model: endpoint.model, ...fields, detail: clip(scrub(fields.detail)) })

    const request = yield* encode(
      HttpClientRequest.post(`${endpoint.baseUrl.replace(/\/+$/, "")}/chat/completions`).pipe(
        HttpClientRequest.acceptJson,
        key === undefined ? (r) => r : HttpClientRequest.bearerToken(key)
      ),
      body
    ).pipe(Effect.orDie)

    const attempt = http.execute(request).pipe(
      Effect.mapError((error) =>
        failed({ reason: "transport", retryable: error.reason === "Transport", detail: `no connection: ${error.message}` })
      ),
      Effect.flatMap(read(failed)),
      Effect.timeoutFail({
        duration: policy.timeout,
        onTimeout: () => failed({ reason: "timeout", retryable: false, detail: `no answer within ${Duration.format(policy.timeout)}` })
      }),
      Effect.tapError((failure) =>
        Effect.logWarning("model call failed").pipe(
          Effect.annotateLogs({ model: failure.model, problem: failure.message, retryable: failure.retryable })
        )
      )
    )
    const answer = yield* Effect.retry(attempt, transientRetry(policy))
    yield* Effect.annotateCurrentSpan({ "response.model": answer.model, finish_reason: answer.choices[0].finish_reason ?? "none" })
    return answer
  })

  return { complete }
})

export type ChatCompletions = Effect.Effect.Success<ReturnType<typeof makeChatCompletions>>
