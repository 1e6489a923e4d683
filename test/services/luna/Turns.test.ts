import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Chunk, Clock, Deferred, Effect, Fiber, Layer, Schedule, Stream } from "effect"
import { BenchServicesLive } from "../../../layers/LunaBench.ts"
import { CONTROL } from "../../../schema/luna/Control.ts"
import type { SessionView } from "../../../schema/luna/Projection.ts"
import { newIdNow } from "../../../services/Ids.ts"
import { benchOwner } from "../../../services/luna/bench/Setup.ts"
import { Luna } from "../../../services/luna/Luna.ts"
import { ModelGateway } from "../../../services/luna/ModelGateway.ts"
import { modelView } from "../../../services/luna/ModelView.ts"
import { ScriptedModel } from "../../../services/luna/ScriptedModel.ts"
import { type TurnPlace, WorkSessions } from "../../../services/luna/WorkSessions.ts"
import { call, callsReply, LunaBenchTest, scriptedTurn, textReply } from "../../support/LunaBench.ts"
import { TestDatabase } from "../../support/TestDatabase.ts"

const auditedTools = (workspaceId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ readonly toolId: string }>`SELECT tool_id FROM audit_log WHERE workspace_id = ${workspaceId}`
  )
    .pipe(Effect.map((rows) => rows.map((row) => row.toolId)))

/** A model that answers only once the test opens its gate: a turn stays running until then. */
class Gate extends Effect.Service<Gate>()("test/luna/Gate", { effect: Deferred.make<void>() }) {}

const GatedModel = Layer.effect(
  ModelGateway,
  Effect.map(Gate, (gate) =>
    ModelGateway.of({
      ready: Effect.void,
      complete: () => Effect.as(Deferred.await(gate), { content: "Listo.", tool_calls: [], model: "gated" })
    }))
).pipe(Layer.provideMerge(Gate.Default))

const GatedTest = BenchServicesLive.pipe(Layer.provideMerge(GatedModel), Layer.provideMerge(TestDatabase))

layer(GatedTest, { timeout: "60 seconds" })("one turn at a time", (it) => {
  it.effect("a message while a turn runs is refused with TurnInProgress (naming the running turn); once it ends, the next one starts", () =>
    Effect.gen(function* () {
      const luna = yield* Luna
      const who = yield* benchOwner("gated", "paid")
      const session = yield* luna.create(who, { stage: "prospectando" })
      const first = yield* luna.start(who, session.id, "primero")
      const refused = yield* Effect.flip(luna.start(who, session.id, "segundo"))
      assert.strictEqual(refused._tag, "TurnInProgress")
      assert.strictEqual(refused._tag === "TurnInProgress" ? refused.turnId : "", first.turnId)
      yield* Deferred.succeed(yield* Gate, undefined)
      const events = Chunk.toReadonlyArray(yield* Stream.runCollect(luna.turnEvents(session.id, first)))
      assert.strictEqual(events[events.length - 1]?.type, "turn.completed")
      const racing = yield* luna.create(who, { stage: "prospectando" })
      const both = yield* Effect.all([luna.start(who, racing.id, "a"), luna.start(who, racing.id, "b")], {
        concurrency: 2,
        mode: "either"
      })
      assert.deepStrictEqual(both.map((r) => r._tag === "Right" ? "started" : r.left._tag).sort(), ["TurnInProgress", "started"])
      const second = Chunk.toReadonlyArray(yield* Stream.runCollect(luna.turn(who, session.id, "segundo")))
      assert.deepStrictEqual(second.map((e) => e.type), ["turn.started", "message.user", "message.assistant", "turn.completed"])
      const view = yield* luna.view(who, session.id)
      assert.deepStrictEqual(view.turns.map((t) => [t.user, t.status]), [["primero", "completed"], ["segundo", "completed"]])
    }))
})

/** What another process would do with `effect`: a Luna of its own (its own state) over the same database. */
const inAnotherProcess = <A, E, R>(effect: Effect.Effect<A, E, R | Luna>) => Effect.provide(effect, Layer.fresh(Luna.Default))

/**
 * A turn as a process that died during it left it: started in the log, never ended, and its lease on the
 * session run out unreleased (`lease: false`: no lease at all, as before turns held one).
 */
const cutOffTurn = (sessionId: string, lease: boolean) =>
  Effect.gen(function* () {
    const place: TurnPlace = { turnId: newIdNow("turn"), parentTurnId: null, variant: 1 }
    yield* Effect.provide(
      Effect.flatMap(WorkSessions, (sessions) =>
        sessions.append(sessionId, place, [{ type: "turn.started", stage: "prospectando" }, { type: "message.user", text: "cortado" }])),
      WorkSessions.Default
    )
    const sql = yield* SqlClient.SqlClient
    if (lease) {
      yield* sql`INSERT INTO session_leases (key, holder, expires_at)
        VALUES (${`luna:turn:${sessionId}`}, ${place.turnId}, clock_timestamp() - interval '1 second')`
    }
    return place.turnId
  })

const leaseOf = (sessionId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ readonly holder: string }>`SELECT holder FROM session_leases WHERE key = ${`luna:turn:${sessionId}`}`
  )

layer(GatedTest, { timeout: "60 seconds" })("one turn at a time, across processes", (it) => {
  it.effect("a message to another process while a turn runs is refused with TurnInProgress naming it", () =>
    Effect.gen(function* () {
      const luna = yield* Luna
      const who = yield* benchOwner("two-processes", "paid")
      const session = yield* luna.create(who, { stage: "prospectando" })
      const first = yield* luna.start(who, session.id, "primero")
      const refused = yield* Effect.flip(inAnotherProcess(Effect.flatMap(Luna, (other) => other.start(who, session.id, "segundo"))))
      assert.deepStrictEqual(refused._tag === "TurnInProgress" ? [refused._tag, refused.turnId] : [refused._tag], [
        "TurnInProgress",
        first.turnId
      ])
      assert.deepStrictEqual((yield* leaseOf(session.id)).map((row) => row.holder), [first.turnId], "the running turn holds the lease")
      const view = yield* luna.view(who, session.id)
      assert.deepStrictEqual(view.turns.map((t) => [t.user, t.status]), [["primero", "running"]])
    }))

  it.effect("a turn cut off by its process's death is ended as failed by the next message, whose turn then starts", () =>
    Effect.gen(function* () {
      const luna = yield* Luna
      const who = yield* benchOwner("cut-off", "paid")
      for (const lease of [true, false]) {
        const session = yield* luna.create(who, { stage: "prospectando" })
        const dead = yield* cutOffTurn(session.id, lease)
        const next = yield* luna.start(who, session.id, "de nuevo")
        const view = yield* luna.view(who, session.id)
        assert.deepStrictEqual(view.turns.map((t) => [t.turn_id, t.user, t.status]), [
          [dead, "cortado", "failed"],
          [next.turnId, "de nuevo", "running"]
        ], lease ? "its lease ran out" : "it held no lease")
        const events = Chunk.toReadonlyArray(
          yield* Stream.runCollect(Stream.take(luna.turnEvents(session.id, { turnId: dead, after: 0 }), 3))
        )
        const failed = events.find((event) => event.type === "turn.failed")
        assert.strictEqual(failed?.type === "turn.failed" ? failed.error.tag : undefined, "Interrupted")
      }
    }))

  it.effect("a cut-off turn no message follows is ended as failed by a process's sweep, and its lease let go", () =>
    Effect.gen(function* () {
      const luna = yield* Luna
      const who = yield* benchOwner("swept", "paid")
      const session = yield* luna.create(who, { stage: "prospectando" })
      const dead = yield* cutOffTurn(session.id, true)
      // a process that starts sweeps at once (and every lease's length after)
      const view = yield* inAnotherProcess(
        luna.view(who, session.id).pipe(
          Effect.repeat(
            Schedule.recurWhile((seen: SessionView) => seen.turns[0]?.status === "running").pipe(Schedule.addDelay(() => "50 millis"))
          ),
          Effect.timeoutFail({ duration: "20 seconds", onTimeout: () => new Error("the cut-off turn was never ended: no sweep") })
        )
      )
      assert.deepStrictEqual(view.turns.map((t) => [t.turn_id, t.status]), [[dead, "failed"]])
      assert.deepStrictEqual(yield* leaseOf(session.id), [])
    }).pipe(Effect.withClock(Clock.make()))) // the sweep and the wait for it, on the real clock
})

layer(LunaBenchTest, { timeout: "120 seconds" })("what the model reads", (it) => {
  it.effect("a quote's token reaches the log but never the model", () =>
    Effect.gen(function* () {
      const enrich = call("company_enrich", { company_ids: ["co_1g7b3x20002x", "co_1g7b3x20007j"] })
      const { calls, events } = yield* scriptedTurn([callsReply(enrich), textReply("Te preparé la cotización [[ref:r1]].")], "Cotiza")
      const output = events.find((e) => e.type === "tool" && e.state === "output-available")
      const token = /"quote_token":"([^"]+)"/.exec(JSON.stringify(output))?.[1] ?? ""
      assert.isAbove(token.length, 10, "the log keeps the quote's token")
      const messages = calls[1]?.request.messages ?? []
      const reply = messages.find((m) => m.role === "tool")
      assert.include(reply?.role === "tool" ? reply.content : "", "\"ref\":\"r1\"")
      assert.include(reply?.role === "tool" ? reply.content : "", "\"kind\":\"quote\"")
      assert.notInclude(JSON.stringify(messages), token)
      assert.notInclude(JSON.stringify(messages), "\\\"quote_token\\\":")
    }))

  it.effect("a buscando turn has the Mercado coverage compiled in once per session: logged under ref mercado, citable, one audited call", () =>
    Effect.gen(function* () {
      const { calls, end, events, session, who } = yield* scriptedTurn(
        [textReply("El conjunto tiene 2000 adjudicaciones [[ref:mercado]].")],
        "¿Qué cubre Mercado?",
        "buscando"
      )
      const coverage = events.filter((e) => e.type === "tool" && e.tool_id === "market_capabilities").map((e) =>
        e.type === "tool" ? e.state : ""
      )
      assert.deepStrictEqual(coverage, ["input-available", "output-available"])
      assert.deepStrictEqual(end.outcome, { kind: "responder", text: "El conjunto tiene 2000 adjudicaciones.", partial: false })
      assert.include(calls[0]?.request.messages[0]?.content ?? "", "Cobertura de Mercado [ref mercado]")
      assert.notInclude(calls[0]?.request.functions.map((f) => f.tool) ?? [], "market_capabilities")
      const model = yield* ScriptedModel
      yield* model.load([textReply("Sigue siendo el mismo conjunto [[ref:mercado]].")])
      const second = Chunk.toReadonlyArray(yield* Stream.runCollect((yield* Luna).turn(who, session.id, "¿y ahora?")))
      assert.isFalse(second.some((e) => e.type === "tool"), "the second turn reuses the logged coverage")
      assert.deepStrictEqual(yield* auditedTools(who.principal.workspaceId), ["market_capabilities"])
    }))

  it.effect("a call after a stage change in the same reply is checked against the new stage's belt", () =>
    Effect.gen(function* () {
      const move = call(CONTROL.stage, { stage: "con_lista", reason: "trabajar la secuencia" })
      const get = call("sequence_get", { sequence_id: "sq_nope" })
      const { end, events } = yield* scriptedTurn([callsReply(move, get), textReply("No encontré esa secuencia.")], "Mira la secuencia")
      assert.strictEqual(end.metrics.belt_violations, 0)
      const error = events.find((e) => e.type === "tool" && e.state === "output-error")
      assert.strictEqual(error?.type === "tool" && error.state === "output-error" ? error.error.tag : "", "SequenceNotFound")
      assert.strictEqual(end.outcome.kind, "cierre")
    }))

  it.effect("an answer after only calls refused for being off the belt is a responder: nothing ran", () =>
    Effect.gen(function* () {
      const offBelt = call("sequence_get", { sequence_id: "sq_nope" })
      const { end } = yield* scriptedTurn([callsReply(offBelt), textReply("Eso se hace con una lista guardada.")], "Mira la secuencia")
      assert.deepStrictEqual([end.outcome.kind, end.metrics.belt_violations, end.metrics.tool_calls], ["responder", 1, 1])
    }))

  it("modelView removes the hidden tokens at any depth and keeps the rest", () => {
    assert.deepStrictEqual(
      modelView({
        data: { quote_token: "q", items: [{ idempotency_key: "k", n: 1 }], total: 2 },
        correlation_id: "c",
        cost: { credits: 4 }
      }),
      { data: { items: [{ n: 1 }], total: 2 }, cost: { credits: 4 } }
    )
  })
})

layer(GatedTest, { timeout: "60 seconds" })("a stop of the service", (it) => {
  it.effect("ends a running turn as failed (Interrupted), which ends its stream; lets a live reader go once it has read that end; starts no turn after it", () =>
    Effect.gen(function* () {
      const luna = yield* Luna
      const who = yield* benchOwner("stopping", "paid")
      const session = yield* luna.create(who, { stage: "prospectando" })
      // the model never answers (its gate stays shut): the turn runs until the stop
      const started = yield* luna.start(who, session.id, "antes del cierre")
      const streamed = yield* Effect.fork(Stream.runCollect(luna.turnEvents(session.id, started)))
      // a live reader of the session, caught up with the running turn when the stop comes
      const caughtUp = yield* Deferred.make<void>()
      const followed = yield* Effect.fork(Effect.flatMap(luna.follow(who, session.id, 0), (events) =>
        events.pipe(
          Stream.tap((event) => event.type === "message.user" ? Deferred.succeed(caughtUp, undefined) : Effect.void),
          Stream.runCollect
        )))
      yield* Deferred.await(caughtUp)
      yield* luna.stop()
      const events = Chunk.toReadonlyArray(yield* Fiber.join(streamed))
      const last = events[events.length - 1]
      assert.strictEqual(last?.type, "turn.failed")
      assert.strictEqual(last?.type === "turn.failed" ? last.error.tag : "", "Interrupted")
      // the reader's stream ends with the turn's end (it resumes elsewhere from the last event it saw)
      const followedEvents = Chunk.toReadonlyArray(yield* Fiber.join(followed))
      assert.deepStrictEqual(followedEvents.map((e) => [e.type === "stream.resume" ? null : e.turn_id, e.type]), [
        [started.turnId, "turn.started"],
        [started.turnId, "message.user"],
        [started.turnId, "turn.failed"]
      ])
      assert.deepStrictEqual(followedEvents.at(-1), last)
      const refused = yield* Effect.flip(luna.start(who, session.id, "después"))
      assert.strictEqual(refused._tag, "ServiceUnavailable")
      // a reader that comes after the stop reads the log and ends
      const late = Chunk.toReadonlyArray(yield* Stream.runCollect(yield* luna.follow(who, session.id, 2)))
      assert.deepStrictEqual(late.map((e) => e.type), ["turn.failed"])
    }))
})
