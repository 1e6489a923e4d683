import { Clock, Effect, Ref } from "effect"
import type { UpstreamSessionEvent } from "../../schema/upstream/Session.ts"
import { maskRut } from "./MaskedRut.ts"

export interface SessionLog {
  readonly record: (event: Omit<UpstreamSessionEvent, "at">) => Effect.Effect<void>
  readonly events: Effect.Effect<ReadonlyArray<UpstreamSessionEvent>>
}

export const makeSessionLog: Effect.Effect<SessionLog> = Effect.map(
  Ref.make<ReadonlyArray<UpstreamSessionEvent>>([]),
  (ref) => ({
    record: Effect.fn("SessionLog.record")(function* (event: Omit<UpstreamSessionEvent, "at">) {
      const at = yield* Clock.currentTimeMillis
      yield* Ref.update(ref, (events) => [...events, { ...event, at }])
      yield* Effect.logDebug(`upstream session ${event.kind}`).pipe(
        Effect.annotateLogs({ upstream: event.upstream, sessionId: event.sessionId, rut: maskRut(event.rut) })
      )
    }),
    events: Ref.get(ref)
  })
)

export interface SessionSpan {
  readonly sessionId: string
  readonly key: string
  readonly start: number
  readonly end: number | undefined
}

export const sessionSpans = (events: ReadonlyArray<UpstreamSessionEvent>): ReadonlyArray<SessionSpan> => {
  const spans = new Map<string, SessionSpan>()
  for (const e of events) {
    const key = `${e.upstream}|${e.institution ?? ""}|${e.rut}`
    if (e.kind === "start") spans.set(e.sessionId, { sessionId: e.sessionId, key, start: e.at, end: undefined })
    const open = spans.get(e.sessionId)
    if (e.kind === "end" && open !== undefined) spans.set(e.sessionId, { ...open, end: e.at })
  }
  return [...spans.values()]
}

/** Sessions of the same user that were open at the same time (an open span counts as still running). */
export const overlappingSessions = (
  events: ReadonlyArray<UpstreamSessionEvent>
): ReadonlyArray<readonly [SessionSpan, SessionSpan]> => {
  const spans = sessionSpans(events)
  const clashes: Array<readonly [SessionSpan, SessionSpan]> = []
  spans.forEach((a, i) =>
    spans.slice(i + 1).forEach((b) => {
      if (a.key === b.key && a.start < (b.end ?? Infinity) && b.start < (a.end ?? Infinity)) clashes.push([a, b])
    })
  )
  return clashes
}
