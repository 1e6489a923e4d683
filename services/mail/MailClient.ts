import { HttpClient, HttpClientRequest, HttpClientResponse } from "@effect/platform"
import { Context, Data, Duration, Effect, Option, type Redacted, Schema } from "effect"
import { ErrorBody, MessageList, NotificationPage, type SendRequest, SendResponse } from "../../schema/mail/Nylas.ts"

/** Where the mail provider is (Nylas v3, or the bundled simulator) and the application's API key. */
export class MailSettings extends Context.Tag("brein/mail/MailSettings")<MailSettings, {
  readonly baseUrl: string
  readonly apiKey: Redacted.Redacted<string>
  readonly timeout?: Duration.DurationInput
}>() {}

/**
 * One failed call. `throttled`: the provider said wait (Retry-After); `rejected`: it refused this
 * request as sent; `unknown`: no clear answer (5xx, timeout, a dropped connection), so a send may
 * or may not have gone out.
 */
export class MailCallFailed extends Data.TaggedError("MailCallFailed")<{
  readonly kind: "throttled" | "rejected" | "unknown"
  readonly status: number
  readonly retryAfterMillis: number
  readonly type: string
  readonly detail: string
}> {
  override get message() {
    return `${this.kind} (HTTP ${this.status}${this.type === "" ? "" : ` ${this.type}`}): ${this.detail}`
  }
}

export const MAIL_TIMEOUT: Duration.DurationInput = "30 seconds"
const DEFAULT_RETRY_AFTER_SECONDS = 60

const failed = (kind: MailCallFailed["kind"], status: number, detail: string, type = "", retryAfterMillis = 0) =>
  new MailCallFailed({ kind, status, detail, type, retryAfterMillis })

const decodeError = Schema.decodeUnknownOption(ErrorBody)

const refusal = (response: HttpClientResponse.HttpClientResponse) =>
  Effect.flatMap(Effect.option(response.json), (json) => {
    const body = Option.flatMap(json, decodeError)
    const detail = Option.match(body, { onNone: () => `HTTP ${response.status}`, onSome: (b) => b.error.message })
    const type = Option.match(body, { onNone: () => "", onSome: (b) => b.error.type })
    if (response.status === 429) {
      const seconds = Number(response.headers["retry-after"])
      const wait = (Number.isFinite(seconds) && seconds >= 0 ? seconds : DEFAULT_RETRY_AFTER_SECONDS) * 1000
      return Effect.fail(failed("throttled", 429, detail, type, wait))
    }
    return Effect.fail(failed(response.status >= 500 ? "unknown" : "rejected", response.status, detail, type))
  })

const answer = <A, I>(schema: Schema.Schema<A, I>) => (response: HttpClientResponse.HttpClientResponse) =>
  response.status < 200 || response.status >= 300
    ? refusal(response)
    : HttpClientResponse.schemaBodyJson(schema)(response).pipe(
      Effect.mapError(() => failed("unknown", response.status, "the answer is not Nylas-shaped", "unexpected_body"))
    )

/** Nylas v3 over HttpClient: one attempt per call; the dispatcher decides what a failure means for a send. */
export class MailClient extends Effect.Service<MailClient>()("brein/mail/MailClient", {
  effect: Effect.gen(function* () {
    const settings = yield* MailSettings
    const client = (yield* HttpClient.HttpClient).pipe(
      HttpClient.mapRequest(HttpClientRequest.prependUrl(settings.baseUrl.replace(/\/+$/, ""))),
      HttpClient.mapRequest(HttpClientRequest.acceptJson),
      HttpClient.mapRequest(HttpClientRequest.bearerToken(settings.apiKey))
    )
    const timeout = Duration.decode(settings.timeout ?? MAIL_TIMEOUT)
    const call = <A>(
      request: HttpClientRequest.HttpClientRequest,
      read: (r: HttpClientResponse.HttpClientResponse) => Effect.Effect<A, MailCallFailed>
    ) =>
      client.execute(request).pipe(
        Effect.mapError((error) => failed("unknown", 0, error.message)),
        Effect.flatMap(read),
        Effect.scoped,
        Effect.timeoutFail({ duration: timeout, onTimeout: () => failed("unknown", 0, "timed out") })
      )
    const grant = (grantId: string) => `/v3/grants/${encodeURIComponent(grantId)}`

    const send = Effect.fn("MailClient.send")(function* (grantId: string, request: SendRequest) {
      const body = HttpClientRequest.bodyUnsafeJson(HttpClientRequest.post(`${grant(grantId)}/messages/send`), request)
      return (yield* call(body, answer(SendResponse))).data
    })

    /** The grant's message carrying `key: value` in its metadata, if the provider holds one. */
    const findByMetadata = Effect.fn("MailClient.findByMetadata")(function* (grantId: string, key: string, value: string) {
      const request = HttpClientRequest.get(`${grant(grantId)}/messages`).pipe(
        HttpClientRequest.setUrlParams({ metadata_pair: `${key}:${value}`, limit: "5" })
      )
      const page = yield* call(request, answer(MessageList))
      return Option.fromNullable(page.data[0])
    })

    /** The grant's bounce, reply and unsubscribe notifications after a cursor (from the start without one). */
    const notifications = Effect.fn("MailClient.notifications")(function* (grantId: string, after: Option.Option<string>) {
      const request = HttpClientRequest.get(`${grant(grantId)}/notifications`).pipe(
        HttpClientRequest.setUrlParams(
          Option.match(after, { onNone: () => ({ limit: "200" }), onSome: (a) => ({ after: a, limit: "200" }) })
        )
      )
      return yield* call(request, answer(NotificationPage))
    })

    return { send, findByMetadata, notifications }
  })
}) {}
