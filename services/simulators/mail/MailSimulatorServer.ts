import { HttpRouter, HttpServer, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Clock, Context, Data, Effect, Layer, Option, Redacted, Ref, Schema } from "effect"
import { type Message, type NotificationType, NYLAS_LIMITS, SendRequest } from "../../../schema/mail/Nylas.ts"
import { scaledSleep } from "../../upstream/SimulatorClock.ts"
import { scriptedFate } from "./MailScript.ts"
import { MailSimulatorStore, NotificationCursor } from "./MailSimulatorStore.ts"

export type MailFault = Data.TaggedEnum<{
  None: {}
  /** Answer `status` (e.g. 503) to the next `times` sends, storing nothing. */
  Status: { readonly status: number; readonly times: number }
  /** Never answer the next `times` sends and store nothing: the caller times out or dies waiting. */
  Hang: { readonly times: number }
  /** Store the next `times` sends, then never answer: the provider accepted what the caller never heard about. */
  AcceptThenHang: { readonly times: number }
  /** Answer 429 (`rate_limit_error`) with this Retry-After to the next `times` sends. */
  Throttle: { readonly times: number; readonly retryAfterSeconds: number }
}>
export const MailFault = Data.taggedEnum<MailFault>()

export interface MailSimulatorOptions {
  /** The application's API key (Bearer). */
  readonly apiKey: Redacted.Redacted<string>
  readonly latencyMs?: number
  readonly timeScale?: number
  /** Sends a grant may make per UTC day before 429 (Nylas recommends at most 700). */
  readonly dailyCap?: number
  /** Least time between two sends of a grant (Nylas recommends 30 s: `nylas.minSendSpacingMs`). */
  readonly minSpacingMs?: number
  /** Share of addresses that bounce, chosen by a hash of the seed and the address. */
  readonly bounceRate?: number
  /** How long after a send a scripted reply or unsubscribe (`reply.*` / `unsubscribe.*` domains) arrives. */
  readonly replyAfterMs?: number
  readonly seed?: string
  readonly fault?: MailFault
}

export const MAIL_SIMULATOR_DEFAULTS = {
  latencyMs: 300,
  dailyCap: NYLAS_LIMITS.dailyCap,
  minSpacingMs: NYLAS_LIMITS.minSpacingMs,
  bounceRate: 0.02,
  replyAfterMs: 3_600_000,
  seed: "brein-mail"
} as const

/** One send as the simulator answered it (0 while it hangs). */
export interface MailRequestLog {
  readonly grantId: string
  readonly method: string
  readonly path: string
  readonly status: number
  /** Which fault answered it, if one did. */
  readonly fault: MailFault["_tag"]
}

export interface MailSimulatorControlShape {
  readonly inject: (fault: MailFault) => Effect.Effect<void>
  /** Records a notification about a sent message now (a reply, an unsubscribe, a late bounce). */
  readonly notify: (type: NotificationType, messageId: string) => Effect.Effect<void>
  /** Every message the provider holds (one grant's, or all), oldest first. */
  readonly messages: (grantId?: string) => Effect.Effect<ReadonlyArray<Message>>
  readonly log: Effect.Effect<ReadonlyArray<MailRequestLog>>
}

export class MailSimulatorControl extends Context.Tag("brein/simulators/mail/MailSimulatorControl")<
  MailSimulatorControl,
  MailSimulatorControlShape
>() {}

const DAY_MS = 86_400_000
const decodeSend = Schema.decodeUnknown(SendRequest)

export const makeMailSimulator = Effect.fn("MailSimulatorServer.make")(function* (options: MailSimulatorOptions) {
  const store = yield* MailSimulatorStore
  const fault = yield* Ref.make<MailFault>(options.fault ?? MailFault.None())
  const log = yield* Ref.make<ReadonlyArray<MailRequestLog>>([])
  const requests = yield* Ref.make(0)
  const latency = scaledSleep(options.latencyMs ?? MAIL_SIMULATOR_DEFAULTS.latencyMs, options.timeScale ?? 1)
  const dailyCap = options.dailyCap ?? MAIL_SIMULATOR_DEFAULTS.dailyCap
  const minSpacingMs = options.minSpacingMs ?? MAIL_SIMULATOR_DEFAULTS.minSpacingMs
  const seed = options.seed ?? MAIL_SIMULATOR_DEFAULTS.seed
  const script = { seed, bounceRate: options.bounceRate ?? MAIL_SIMULATOR_DEFAULTS.bounceRate }
  const replyAfterMs = options.replyAfterMs ?? MAIL_SIMULATOR_DEFAULTS.replyAfterMs
  // Sends are admitted one at a time, so a grant's cap and spacing hold under concurrent requests.
  const admission = yield* Effect.makeSemaphore(1)

  const takeFault = Ref.modify(fault, (current): readonly [MailFault, MailFault] =>
    current._tag === "None"
      ? [current, current]
      : [current, current.times <= 1 ? MailFault.None() : { ...current, times: current.times - 1 }])

  const requestId = Effect.map(Ref.updateAndGet(requests, (n) => n + 1), (n) => `req-${seed}-${n}`)
  const json = (body: object, status = 200, headers: Record<string, string> = {}) =>
    Effect.map(requestId, (request_id) => HttpServerResponse.unsafeJson({ request_id, ...body }, { status, headers }))
  const error = (status: number, type: string, message: string, headers: Record<string, string> = {}) =>
    json({ error: { type, message } }, status, headers)
  const throttled = (retryAfterSeconds: number, message: string) =>
    error(429, "rate_limit_error", message, { "retry-after": String(retryAfterSeconds) })

  const authorized = Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
    const header = request.headers["authorization"] ?? ""
    return header.startsWith("Bearer ") && header.slice(7).trim() === Redacted.value(options.apiKey)
  })

  /** Auth, then latency: what every endpoint goes through. */
  const guarded = <E, R>(handler: (grantId: string) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
    Effect.gen(function* () {
      const grantId = (yield* HttpRouter.params).grantId ?? ""
      if (!(yield* authorized)) return yield* error(401, "unauthorized", "Unauthorized: a valid API key is required")
      yield* latency
      return yield* handler(grantId)
    })

  /** Whether the grant may send now; if not, how long until it may (the day's cap, then the spacing). */
  const admit = Effect.fn("MailSimulatorServer.admit")(function* (grantId: string, now: number) {
    const dayStart = Math.floor(now / DAY_MS) * DAY_MS
    const usage = yield* store.usage(grantId, new Date(dayStart))
    if (usage.today >= dailyCap) {
      return Option.some({ seconds: Math.ceil((dayStart + DAY_MS - now) / 1000), why: `daily sending limit of ${dailyCap} reached` })
    }
    const wait = usage.last === null ? 0 : usage.last.getTime() + minSpacingMs - now
    return wait > 0 ? Option.some({ seconds: Math.ceil(wait / 1000), why: "sending too fast for this grant" }) : Option.none()
  })

  const deliver = Effect.fn("MailSimulatorServer.deliver")(function* (grantId: string, request: SendRequest, now: number) {
    const to = request.to[0].email
    const sent = yield* store.insert(seed, {
      grantId,
      to,
      from: request.from?.[0]?.email ?? `${grantId}@grants.nylas.test`,
      subject: request.subject,
      body: request.body,
      metadata: request.metadata ?? {},
      headers: request.custom_headers ?? [],
      replyTo: request.reply_to_message_id,
      date: new Date(now)
    })
    const fate = scriptedFate(script, to)
    if (fate === "bounce") yield* store.notify(seed, "message.bounce_detected", sent, "550 5.1.1 mailbox unavailable", new Date(now))
    if (fate === "reply") yield* store.notify(seed, "message.reply_received", sent, "reply", new Date(now + replyAfterMs))
    if (fate === "unsubscribe") {
      yield* store.notify(seed, "message.unsubscribe_requested", sent, "List-Unsubscribe one-click", new Date(now + replyAfterMs))
    }
    return sent
  })

  const send = guarded((grantId) =>
    Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const record = (status: number, tag: MailFault["_tag"]) =>
        Ref.update(log, (all) => [...all, { grantId, method: request.method, path: request.url, status, fault: tag }])
      const body = yield* Effect.flatMap(Effect.option(request.json), (json) =>
        Option.match(json, { onNone: () => Effect.succeed(Option.none()), onSome: (j) => Effect.option(decodeSend(j)) }))
      if (Option.isNone(body)) {
        yield* record(400, "None")
        return yield* error(400, "invalid_request_error", "The request body must have to, subject and body")
      }
      const current = yield* takeFault
      switch (current._tag) {
        case "Hang":
          return yield* Effect.zipRight(record(0, current._tag), Effect.never)
        case "Status":
          yield* record(current.status, current._tag)
          return yield* error(current.status, "api_error", "The provider failed to process the request")
        case "Throttle":
          yield* record(429, current._tag)
          return yield* throttled(current.retryAfterSeconds, "The provider is limiting this grant")
        default:
          break
      }
      const outcome = yield* admission.withPermits(1)(Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const wait = yield* admit(grantId, now)
        if (Option.isSome(wait)) {
          return { _tag: "Throttled" as const, ...wait.value }
        }
        return { _tag: "Sent" as const, message: yield* deliver(grantId, body.value, now) }
      }))
      if (outcome._tag === "Throttled") {
        yield* record(429, "None")
        return yield* throttled(outcome.seconds, outcome.why)
      }
      if (current._tag === "AcceptThenHang") {
        return yield* Effect.zipRight(record(0, current._tag), Effect.never)
      }
      yield* record(200, "None")
      return yield* json({ data: outcome.message })
    })
  )

  const list = guarded((grantId) =>
    Effect.gen(function* () {
      const query = yield* HttpServerRequest.ParsedSearchParams
      const pair = typeof query["metadata_pair"] === "string" ? query["metadata_pair"] : ""
      const split = pair.indexOf(":")
      if (split <= 0) return yield* error(400, "invalid_request_error", "metadata_pair must be key:value")
      const limit = Math.min(Math.max(Number(query["limit"] ?? 50) || 50, 1), 200)
      const data = yield* store.byMetadata(grantId, pair.slice(0, split), pair.slice(split + 1), limit)
      return yield* json({ data })
    })
  )

  const notifications = guarded((grantId) =>
    Effect.gen(function* () {
      const query = yield* HttpServerRequest.ParsedSearchParams
      const raw = typeof query["after"] === "string" ? query["after"] : undefined
      const after = raw === undefined ? Option.some(NotificationCursor.start) : NotificationCursor.decode(raw)
      if (Option.isNone(after)) return yield* error(400, "invalid_request_error", "after is not a cursor of this feed")
      const limit = Math.min(Math.max(Number(query["limit"] ?? 100) || 100, 1), 500)
      const now = new Date(yield* Clock.currentTimeMillis)
      const page = yield* store.notifications(grantId, after.value, now, limit)
      return yield* json({ data: page.data, next_cursor: NotificationCursor.encode(page.cursor) })
    })
  )

  const router = HttpRouter.empty.pipe(
    HttpRouter.post("/v3/grants/:grantId/messages/send", send),
    HttpRouter.get("/v3/grants/:grantId/messages", list),
    HttpRouter.get("/v3/grants/:grantId/notifications", notifications)
  )

  const control = MailSimulatorControl.of({
    inject: Effect.fn("MailSimulatorServer.inject")(function* (next: MailFault) {
      yield* Ref.set(fault, next)
    }),
    notify: Effect.fn("MailSimulatorServer.notify")(function* (type: NotificationType, messageId: string) {
      const sent = yield* store.message(messageId)
      if (Option.isNone(sent)) return yield* Effect.dieMessage(`no message ${messageId} to notify about`)
      yield* store.notify(seed, type, sent.value, "injected", new Date(yield* Clock.currentTimeMillis))
    }),
    messages: Effect.fn("MailSimulatorServer.messages")((grantId?: string) => store.messages(grantId)),
    log: Ref.get(log)
  })
  return { router, control }
})

export const MailSimulatorServer = {
  /** Serves Nylas v3 send, message search by metadata and a notification feed on the provided HttpServer. */
  layer: (options: MailSimulatorOptions): Layer.Layer<MailSimulatorControl, never, HttpServer.HttpServer | MailSimulatorStore> =>
    Layer.unwrapEffect(
      Effect.map(
        makeMailSimulator(options),
        ({ control, router }) => Layer.merge(HttpServer.serve(router), Layer.succeed(MailSimulatorControl, control))
      )
    )
}
