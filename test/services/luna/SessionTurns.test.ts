import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import type { SessionView } from "../../../schema/luna/Projection.ts"
import { benchOwner } from "../../../services/luna/bench/Setup.ts"
import { Luna } from "../../../services/luna/Luna.ts"
import { project } from "../../../services/luna/Projection.ts"
import { SAVE_EVERY, SessionStates } from "../../../services/luna/SessionStates.ts"
import { WorkSessions } from "../../../services/luna/WorkSessions.ts"
import { appendTurns, EVENTS_PER_TURN, wholeLog } from "../../support/LongLog.ts"
import { LunaBenchTest } from "../../support/LunaBench.ts"
import { finishedSpans, spansNamed, SpansTest } from "../../support/Spans.ts"

const TurnsTest = Layer.merge(WorkSessions.Default, SessionStates.Default).pipe(Layer.provideMerge(LunaBenchTest))

const decodeCounts = Schema.decodeUnknown(Schema.Array(Schema.Struct({ rows: Schema.Int, bytes: Schema.Int })))

const longSession = (turns: number) =>
  Effect.gen(function* () {
    const luna = yield* Luna
    const who = yield* benchOwner("turns", "paid")
    const session = yield* luna.create(who, { stage: "prospectando" })
    yield* appendTurns(session.id, turns)
    return { luna, who, session }
  })

/** `effect`, and what the reads under it decoded: per read of a session's turns, the part and how many rows. */
const decoding = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.zip(effect, finishedSpans).pipe(
    Effect.map(([value, spans]) => ({
      value,
      decoded: spansNamed(spans, "SessionStates.turns").map((
        span
      ) => [span.attributes["luna.turn_part"], span.attributes["luna.turns_decoded"]]),
      folds: spansNamed(spans, "SessionStates.fold").map((span) => span.attributes["luna.events_read"])
    })),
    Effect.provide(SpansTest)
  )

/** The snapshot's size in the database, and how many turn rows the session has. */
const stored = (sessionId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql`SELECT (SELECT count(*)::int FROM work_session_turns WHERE session_id = ${sessionId}) AS rows,
      (SELECT octet_length(state) FROM work_session_states WHERE session_id = ${sessionId}) AS bytes`
        .pipe(Effect.flatMap(decodeCounts), Effect.orDie, Effect.map((rows) => rows[0]))
  )

layer(TurnsTest, { timeout: "300 seconds" })("a session's turns, a row each", (it) => {
  it.effect("a view pages its turns: the latest N, then back to the first, the pages together the whole view's turns", () =>
    Effect.gen(function* () {
      const { luna, session, who } = yield* longSession(47)
      const whole = yield* luna.view(who, session.id)
      assert.strictEqual(whole.turns.length, 47)
      assert.isFalse(whole.more_before)
      assert.deepStrictEqual(whole, project(session, yield* wholeLog(session.id)))
      const pages: Array<SessionView["turns"]> = []
      let page = yield* luna.view(who, session.id, { turns: 10 })
      pages.unshift(page.turns)
      while (page.more_before) {
        const first = page.turns[0]?.turn_id
        page = yield* luna.view(who, session.id, { turns: 10, before: first })
        assert.strictEqual(page.last_seq, whole.last_seq)
        pages.unshift(page.turns)
      }
      assert.deepStrictEqual(pages.map((turns) => turns.length), [7, 10, 10, 10, 10])
      assert.deepStrictEqual(pages.flat(), whole.turns)
      const before = yield* luna.view(who, session.id, { before: whole.turns[3]?.turn_id })
      assert.deepStrictEqual(before.turns, whole.turns.slice(0, 3), "before alone: every turn before it")
      assert.deepStrictEqual((yield* luna.view(who, session.id, { turns: 1000 })).turns, whole.turns)
      const refused = yield* Effect.flip(luna.view(who, session.id, { turns: 5, before: "turn_nope" }))
      assert.strictEqual(refused._tag, "InvalidInput")
      assert.deepStrictEqual(refused._tag === "InvalidInput" ? refused.issues.map((issue) => issue.path) : [], ["before"])
    }))

  it.effect("what a view page and a turn's fold decode does not grow with the session; the snapshot stays small", () =>
    Effect.gen(function* () {
      const seen: Array<unknown> = []
      for (const turns of [50, 3_000]) {
        const { luna, session, who } = yield* longSession(turns)
        yield* luna.view(who, session.id, { turns: 5 })
        const size = yield* stored(session.id)
        assert.strictEqual(size?.rows, turns, "a row per turn")
        assert.isBelow(size?.bytes ?? Infinity, 200, "the snapshot holds no turn")
        yield* appendTurns(session.id, 3)
        const page = yield* decoding(luna.view(who, session.id, { turns: 5 }))
        assert.deepStrictEqual(page.value.turns, project(session, yield* wholeLog(session.id)).turns.slice(-5))
        seen.push(page.decoded, page.folds)
        const context = yield* decoding(Effect.flatMap(SessionStates, (states) => states.context(session.id)))
        assert.deepStrictEqual(context.decoded.map(([part]) => part), ["context"], "a turn's context decodes no turn's view")
      }
      assert.isBelow(3 * EVENTS_PER_TURN, SAVE_EVERY)
      // the page's five turns: three the fold read from the log, two decoded from their rows; the same however long the session
      const same = [[["view", 2]], [3 * EVENTS_PER_TURN]]
      assert.deepStrictEqual(seen, [...same, ...same])
    }))

  it.effect("turn rows and the snapshot deleted (some or all) are folded again from the log to the same view and context", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const states = yield* SessionStates
      const { luna, session, who } = yield* longSession(60)
      const whole = yield* luna.view(who, session.id)
      const context = yield* states.context(session.id)
      assert.deepStrictEqual(whole, project(session, yield* wholeLog(session.id)))
      yield* sql`DELETE FROM work_session_turns WHERE session_id = ${session.id} AND ordinal IN (0, 31, 59)`
      assert.deepStrictEqual(yield* luna.view(who, session.id), whole, "a missing turn in the middle")
      assert.deepStrictEqual((yield* luna.view(who, session.id, { turns: 2 })).turns, whole.turns.slice(-2))
      assert.deepStrictEqual(yield* states.context(session.id), context)
      assert.strictEqual((yield* stored(session.id))?.rows, 60, "the fold of the whole log wrote them again")
      // a missing turn the next events go on with: it keeps its place, it is not a new turn
      const last = whole.turns[59]?.turn_id ?? ""
      yield* sql`DELETE FROM work_session_turns WHERE session_id = ${session.id} AND turn_id = ${last}`
      yield* Effect.flatMap(WorkSessions, (sessions) =>
        sessions.append(session.id, { turnId: last, parentTurnId: null, variant: 1 }, [{
          type: "turn.failed",
          error: { tag: "Interrupted", message: "cut off" }
        }]))
      const grown = project(session, yield* wholeLog(session.id))
      assert.deepStrictEqual((yield* luna.view(who, session.id, { turns: 1 })).turns, grown.turns.slice(-1))
      assert.deepStrictEqual(yield* luna.view(who, session.id), grown)
      yield* sql`DELETE FROM work_session_turns WHERE session_id = ${session.id}`
      assert.deepStrictEqual(yield* luna.view(who, session.id), grown)
      yield* sql`DELETE FROM work_session_states WHERE session_id = ${session.id}`
      yield* sql`DELETE FROM work_session_turns WHERE session_id = ${session.id}`
      assert.deepStrictEqual(yield* luna.view(who, session.id), grown)
      assert.deepStrictEqual(yield* luna.view(who, session.id, { turns: 3 }), { ...grown, turns: grown.turns.slice(-3), more_before: true })
      assert.strictEqual(grown.turns.at(-1)?.status, "failed")
    }))

  it.effect("a reader whose snapshot is older than turn rows another saved reads them from the log, not past its snapshot", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const { luna, session, who } = yield* longSession(30)
      yield* luna.view(who, session.id)
      const old = yield* sql<{ readonly seq: number; readonly state: string }>`SELECT seq, state FROM work_session_states
        WHERE session_id = ${session.id}`
      yield* appendTurns(session.id, 20)
      yield* luna.view(who, session.id)
      // as a reader sees it that read the older snapshot before the other's save: turn rows past it
      yield* sql`UPDATE work_session_states SET seq = ${old[0]?.seq ?? 0}, state = ${old[0]?.state ?? ""} WHERE session_id = ${session.id}`
      const log = yield* wholeLog(session.id)
      const at = yield* decoding(luna.view(who, session.id, { turns: 25 }))
      assert.deepStrictEqual(at.value.turns, project(session, log).turns.slice(-25))
      assert.isTrue(at.value.more_before)
      assert.deepStrictEqual(yield* luna.view(who, session.id), project(session, log))
    }))

  it.effect("readers at once while the log grows each see the fold of a whole prefix of it, and agree once it stops", () =>
    Effect.gen(function* () {
      const states = yield* SessionStates
      const { luna, session, who } = yield* longSession(10)
      const read = Effect.all([luna.view(who, session.id), luna.view(who, session.id, { turns: 4 }), states.context(session.id)], {
        concurrency: "unbounded"
      })
      const rounds = yield* Effect.forEach(
        [1, 2, 3, 4, 5, 6],
        (round) => Effect.zipRight(appendTurns(session.id, 5 * round), Effect.all([read, read], { concurrency: "unbounded" }))
      )
      const log = yield* wholeLog(session.id)
      for (const [[whole, page, context], [again]] of rounds) {
        const prefix = log.filter((event) => event.seq <= whole.last_seq)
        assert.deepStrictEqual(whole, project(session, prefix))
        assert.strictEqual(again.turns.length, project(session, log.filter((event) => event.seq <= again.last_seq)).turns.length)
        const pagePrefix = project(session, log.filter((event) => event.seq <= page.last_seq))
        assert.deepStrictEqual(page.turns, pagePrefix.turns.slice(-4))
        const last = context.at(-1)?.seq ?? 0
        assert.deepStrictEqual(context, log.filter((event) => event.seq <= last && isContext(event.type, event)))
      }
      const [a, b] = yield* Effect.all([luna.view(who, session.id), luna.view(who, session.id)], { concurrency: "unbounded" })
      assert.deepStrictEqual(a, project(session, log))
      assert.deepStrictEqual(b, a)
    }))
})

const isContext = (type: string, event: { readonly type: string; readonly state?: string }) =>
  type === "message.user" || type === "message.assistant" || (type === "tool" && event.state === "output-available")
