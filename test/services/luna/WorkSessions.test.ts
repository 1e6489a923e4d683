import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Chunk, Effect, Fiber, Layer, Stream } from "effect"
import { WorkSessions } from "../../../services/luna/WorkSessions.ts"
import { Workspaces } from "../../../services/workspace/Workspaces.ts"
import { TestDatabase } from "../../support/TestDatabase.ts"
import { uniqueName } from "../../support/TestLayers.ts"

const SessionsTest = Layer.mergeAll(WorkSessions.Default, Workspaces.Default).pipe(Layer.provideMerge(TestDatabase))

const owner = (name: string = uniqueName("luna"), key = "key_ana") =>
  Effect.flatMap(Workspaces, (w) => w.create(name, "paid")).pipe(
    Effect.orDie,
    Effect.flatMap((created) => Effect.flatMap(Workspaces, (w) => Effect.orDie(w.principalFor(created.name)))),
    Effect.map((principal) => ({ principal, owner: key }))
  )

const place = { turnId: "turn_1", parentTurnId: null, variant: 1 }

layer(SessionsTest)("Work Sessions", (it) => {
  it.effect("numbers events per session from 1, in the order they were appended, and a stage change moves the session", () =>
    Effect.gen(function* () {
      const sessions = yield* WorkSessions
      const who = yield* owner()
      const session = yield* sessions.create(who, { title: "Logística" })
      assert.strictEqual(session.stage, "buscando")
      yield* sessions.append(session.id, place, [{ type: "turn.started", stage: "buscando" }, { type: "message.user", text: "hola" }])
      yield* sessions.append(session.id, place, [{
        type: "stage.changed",
        from: "buscando",
        to: "con_lista",
        reason: "list_save answered"
      }])
      const events = yield* sessions.events(session.id, 0)
      assert.deepStrictEqual(events.map((e) => [e.seq, e.type, e.turn_id, e.variant]), [
        [1, "turn.started", "turn_1", 1],
        [2, "message.user", "turn_1", 1],
        [3, "stage.changed", "turn_1", 1]
      ])
      assert.deepStrictEqual((yield* sessions.events(session.id, 2)).map((e) => e.seq), [3])
      assert.strictEqual((yield* sessions.get(who, session.id)).stage, "con_lista")
    }))

  it.effect("a session is found only by its owner in its workspace", () =>
    Effect.gen(function* () {
      const sessions = yield* WorkSessions
      const ana = yield* owner()
      const session = yield* sessions.create(ana, {})
      const otherKey = { ...ana, owner: "key_bruno" }
      const otherWorkspace = yield* owner(uniqueName("other"), "key_ana")
      for (const who of [otherKey, otherWorkspace]) {
        const refused = yield* Effect.flip(sessions.get(who, session.id))
        assert.strictEqual(refused._tag, "WorkSessionNotFound")
      }
      assert.strictEqual((yield* sessions.get(ana, session.id)).id, session.id)
    }))

  it.effect("the log is append-only in the database: UPDATE, DELETE and TRUNCATE are refused and nothing changes", () =>
    Effect.gen(function* () {
      const sessions = yield* WorkSessions
      const session = yield* sessions.create(yield* owner(), {})
      yield* sessions.append(session.id, place, [{ type: "message.user", text: "original" }])
      const sql = yield* SqlClient.SqlClient
      for (
        const [operation, statement] of [
          ["UPDATE", `UPDATE work_session_events SET body = '{}' WHERE session_id = '${session.id}'`],
          ["DELETE", `DELETE FROM work_session_events WHERE session_id = '${session.id}'`],
          ["TRUNCATE", "TRUNCATE work_session_events"]
        ] as const
      ) {
        const refused = yield* Effect.flip(sql.unsafe(statement))
        assert.include(String(refused.cause), `work_session_events is append-only: ${operation} refused`)
      }
      const events = yield* sessions.events(session.id, 0)
      assert.deepStrictEqual(events.map((e) => e.type === "message.user" ? e.text : e.type), ["original"])
    }))

  it.effect("a reader tails the log: it gets what is written after it started, and stops at the turn's end", () =>
    Effect.gen(function* () {
      const sessions = yield* WorkSessions
      const session = yield* sessions.create(yield* owner(), {})
      yield* sessions.append(session.id, place, [{ type: "message.user", text: "antes" }])
      const reader = yield* Effect.fork(Stream.runCollect(sessions.tail(session.id, 1)))
      yield* sessions.append(session.id, place, [{ type: "message.user", text: "durante" }])
      yield* sessions.append(session.id, place, [{
        type: "turn.failed",
        error: { tag: "TurnFailed", message: "fin" }
      }, { type: "message.user", text: "después" }])
      const read = Chunk.toReadonlyArray(yield* Fiber.join(reader))
      assert.deepStrictEqual(read.map((e) => [e.seq, e.type]), [[2, "message.user"], [3, "turn.failed"]])
    }))
})
