import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Chunk, Effect, Stream } from "effect"
import { BreinApi } from "../../schema/http/Api.ts"
import { CurrentActor } from "../../schema/http/Sessions.ts"
import type { FollowEvent } from "../../schema/luna/Events.ts"
import { Luna } from "../../services/luna/Luna.ts"

/** How often an idle event stream sends a comment, so proxies keep the connection open. */
const HEARTBEAT = "15 seconds"

/**
 * Written before any event: Node sends the status and headers only with the first bytes, so a stream
 * with nothing new to send would otherwise look like a hung request until the first heartbeat.
 */
const OPENING = ": connected\n\n"

/** A StreamResume's id is where to resume: a client that reconnects on its own sends it back as Last-Event-ID. */
const frame = (event: FollowEvent) =>
  `id: ${event.type === "stream.resume" ? event.after : event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`

/** Server-sent events: a comment at once, then one frame per event, with comments in between while nothing happens. */
const sse = <E>(events: Stream.Stream<FollowEvent, E>) =>
  HttpServerResponse.stream(
    Stream.merge(Stream.map(events, frame), Stream.map(Stream.drop(Stream.tick(HEARTBEAT), 1), () => ": keep-alive\n\n"), {
      haltStrategy: "left"
    })
      .pipe(Stream.prepend(Chunk.of(OPENING)), Stream.encodeText),
    { contentType: "text/event-stream", headers: { "cache-control": "no-cache", "x-accel-buffering": "no" } }
  )

export const SessionsLive = HttpApiBuilder.group(BreinApi, "sessions", (handlers) =>
  Effect.gen(function* () {
    const luna = yield* Luna
    return handlers
      .handle("create", ({ payload }) => Effect.flatMap(CurrentActor, (who) => luna.create(who, payload)))
      .handle("view", ({ path, urlParams }) => Effect.flatMap(CurrentActor, (who) => luna.view(who, path.id, urlParams)))
      .handle("message", ({ path, payload }) =>
        Effect.gen(function* () {
          const who = yield* CurrentActor
          const started = yield* luna.start(who, path.id, payload.text)
          return sse(luna.turnEvents(path.id, started))
        }))
      .handle("events", ({ headers, path, urlParams }) =>
        Effect.gen(function* () {
          const who = yield* CurrentActor
          const after = headers["last-event-id"] ?? urlParams.after ?? 0
          return sse(yield* luna.follow(who, path.id, after))
        }))
  }))
