import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Chunk, Deferred, Effect, Layer, Stream } from "effect"
import { BenchServicesLive } from "../../../layers/LunaBench.ts"
import { CONTROL } from "../../../schema/luna/Control.ts"
import { benchOwner } from "../../../services/luna/bench/Setup.ts"
import { Luna } from "../../../services/luna/Luna.ts"
import { ModelGateway } from "../../../services/luna/ModelGateway.ts"
import { modelView } from "../../../services/luna/ModelView.ts"
import { ScriptedModel } from "../../../services/luna/ScriptedModel.ts"
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
