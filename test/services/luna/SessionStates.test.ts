import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Chunk, Effect, Layer, Stream } from "effect"
import type { LunaEvent } from "../../../schema/luna/Events.ts"
import type { ModelMessage } from "../../../schema/luna/Model.ts"
import { beltOf } from "../../../services/luna/Belts.ts"
import { benchOwner } from "../../../services/luna/bench/Setup.ts"
import { COVERAGE_REF, coverageIn } from "../../../services/luna/Coverage.ts"
import { Luna } from "../../../services/luna/Luna.ts"
import { project } from "../../../services/luna/Projection.ts"
import { ScriptedModel } from "../../../services/luna/ScriptedModel.ts"
import { SAVE_EVERY, SessionStates } from "../../../services/luna/SessionStates.ts"
import { historyOf, resultsOf, systemMessage } from "../../../services/luna/TurnInput.ts"
import { WorkSessions } from "../../../services/luna/WorkSessions.ts"
import { Registry, type RegistryApi } from "../../../services/tools/Registry.ts"
import { appendTurns, EVENTS_PER_TURN, wholeLog } from "../../support/LongLog.ts"
import { LunaBenchTest, textReply } from "../../support/LunaBench.ts"
import { finishedSpans, spansNamed, SpansTest } from "../../support/Spans.ts"

const StatesTest = Layer.merge(WorkSessions.Default, SessionStates.Default).pipe(Layer.provideMerge(LunaBenchTest))

const place = { turnId: "turn_after", parentTurnId: null, variant: 1 }

/** `effect`, and how many events each read of a session's folded log under it read past its snapshot. */
const counted = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.zip(effect, finishedSpans).pipe(
    Effect.map(([value, spans]) => ({
      value,
      reads: spansNamed(spans, "SessionStates.fold").map((span) => span.attributes["luna.events_read"])
    })),
    Effect.provide(SpansTest)
  )

const longSession = (turns: number) =>
  Effect.gen(function* () {
    const luna = yield* Luna
    const who = yield* benchOwner("long", "paid")
    const session = yield* luna.create(who, { stage: "prospectando" })
    yield* appendTurns(session.id, turns)
    return { luna, who, session }
  })

layer(StatesTest, { timeout: "300 seconds" })("a session's folded log", (it) => {
  it.effect("a session past 100,000 events is viewed whole, as the projection of its whole log", () =>
    Effect.gen(function* () {
      const { luna, session, who } = yield* longSession(Math.ceil(100_001 / EVENTS_PER_TURN))
      const log = yield* wholeLog(session.id)
      assert.isAbove(log.length, 100_000)
      const view = yield* luna.view(who, session.id)
      assert.strictEqual(view.last_seq, log.length)
      assert.deepStrictEqual(view, project(session, log))
      yield* Effect.flatMap(WorkSessions, (sessions) =>
        sessions.append(session.id, place, [{ type: "turn.started", stage: "con_lista" }, { type: "message.user", text: "y ahora" }]))
      const after = yield* counted(luna.view(who, session.id))
      assert.deepStrictEqual(after.reads, [2], "the view read the snapshot and the two events written after it")
      assert.deepStrictEqual(after.value, project(session, yield* wholeLog(session.id)))
      assert.deepStrictEqual(after.value.turns.at(-1)?.user, "y ahora")
    }), 240_000)

  it.effect("what a view reads does not grow with the session's length, and a snapshot deleted is folded again the same", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const reads: Array<unknown> = []
      for (const turns of [50, 2_000]) {
        const { luna, session, who } = yield* longSession(turns)
        yield* luna.view(who, session.id)
        yield* appendTurns(session.id, 3)
        const next = yield* counted(luna.view(who, session.id))
        reads.push(...next.reads)
        assert.deepStrictEqual(next.value, project(session, yield* wholeLog(session.id)))
        yield* sql`DELETE FROM work_session_states WHERE session_id = ${session.id}`
        assert.deepStrictEqual(yield* luna.view(who, session.id), next.value, "folded again from the log")
      }
      assert.isBelow(3 * EVENTS_PER_TURN, SAVE_EVERY)
      assert.deepStrictEqual(reads, [3 * EVENTS_PER_TURN, 3 * EVENTS_PER_TURN])
    }))

  it.effect("a turn of a long session reads what was written since the snapshot, and the model gets the context of the whole log", () =>
    Effect.gen(function* () {
      const { luna, session, who } = yield* longSession(2_000)
      yield* luna.view(who, session.id)
      const earlier = yield* wholeLog(session.id)
      const model = yield* ScriptedModel
      yield* model.load([textReply("Listo.")])
      const turn = yield* counted(Stream.runCollect(luna.turn(who, session.id, "¿y ahora?")))
      assert.strictEqual(Chunk.last(turn.value).pipe((last) => last._tag === "Some" ? last.value.type : ""), "turn.completed")
      assert.deepStrictEqual(turn.reads, [2], "the turn read the snapshot and its own first two events")
      const sent = (yield* model.calls)[0]?.request.messages ?? []
      assert.deepStrictEqual(sent, expectedMessages(yield* Registry, earlier, "¿y ahora?"))
    }))
})

/** What the model was sent before the snapshot: every earlier event of the log read, compiled as a turn compiles it. */
const expectedMessages = (
  registry: RegistryApi,
  earlier: ReadonlyArray<LunaEvent>,
  text: string
): ReadonlyArray<ModelMessage> => {
  const coverage = coverageIn(earlier)
  const facts = resultsOf(earlier).filter((result) => result.ref !== COVERAGE_REF)
  const stage = "prospectando"
  const system = systemMessage({ stage, belt: beltOf(registry.tools, stage), board: { items: [], selected: [] }, facts, coverage })
  return [system, ...historyOf(earlier), { role: "user", content: text }]
}
