import { assert, describe, it, layer } from "@effect/vitest"
import { Cause, Clock, ConfigProvider, Effect, Exit, Layer, Ref, Schema } from "effect"
import { SyncOutput } from "../../schema/connectors/Sync.ts"
import { currentPeriodo } from "../../services/upstream/CivilDate.ts"
import { SiiSimulator } from "../../services/upstream/SiiSimulator.ts"
import { execute, rut, siiConnection, simulatedServices } from "./Connected.ts"
import { waitUntil } from "./Eventually.ts"
import { SUITE_NOW, SUITE_PERIODO } from "./SuiteClock.ts"
import { TestDatabase } from "./TestDatabase.ts"
import { issuePrincipal } from "./TestLayers.ts"
import { RecordedLogs, RecordLogs, testLogging } from "./TestLogging.ts"

const Live = simulatedServices().pipe(Layer.provideMerge(TestDatabase))
const MINUTE = 60_000

layer(Live, { excludeTestServices: true })("the suite's clock", (it) => {
  it.effect("the test, the sync worker and the simulators it talks to all read it, whatever the machine's date", () =>
    Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      assert.isTrue(now >= SUITE_NOW && now < SUITE_NOW + 10 * MINUTE, `the test reads ${new Date(now).toISOString()}`)
      assert.strictEqual(yield* currentPeriodo, SUITE_PERIODO)
      const { principal } = yield* issuePrincipal("paid")
      const user = rut(76990001)
      const connection = yield* siiConnection(principal, user)
      const response = yield* execute(
        principal,
        "sii.conexion.sincronizar",
        { periodo: "2026-10", perspectiva: "ventas", esperar: 20 },
        connection.id
      )
      assert.strictEqual((yield* Schema.decodeUnknown(SyncOutput)(response.data)).estado, "sincronizada")
      const sessions = (yield* (yield* SiiSimulator).sessions).filter((e) => e.rut === user)
      assert.isNotEmpty(sessions)
      for (const event of sessions) {
        assert.isTrue(event.at >= SUITE_NOW && event.at < SUITE_NOW + 10 * MINUTE, "the simulator, run by the worker")
      }
    }))
})

describe("waitUntil", () => {
  it.live("answers the first value that satisfies the condition", () =>
    Effect.gen(function* () {
      const reads = yield* Ref.make(0)
      const seen = yield* waitUntil(Ref.updateAndGet(reads, (n) => n + 1), (n) => n === 3, { what: "the third read", every: "1 millis" })
      assert.strictEqual(seen, 3)
    }))

  it.live("gives up after its tries, naming what did not happen and the last value", () =>
    Effect.gen(function* () {
      const reads = yield* Ref.make(0)
      const exit = yield* Effect.exit(
        waitUntil(Ref.updateAndGet(reads, (n) => n + 1), () => false, { what: "a miracle", every: "1 millis", tries: 4 })
      )
      assert.isTrue(Exit.isFailure(exit) && Cause.isDie(exit.cause))
      if (Exit.isFailure(exit)) assert.include(Cause.pretty(exit.cause), "a miracle did not happen; last seen: 5")
      assert.strictEqual(yield* Ref.get(reads), 5, "one read and four retries")
    }))
})

const loggedWith = (env: Readonly<Record<string, string>>) =>
  Effect.gen(function* () {
    yield* Effect.logInfo("routine detail")
    yield* Effect.logWarning("something odd")
    const lines = yield* (yield* RecordedLogs).lines
    return lines.map((l) => /message="([^"]*)"/.exec(l)?.[1])
  }).pipe(
    Effect.provide(Layer.provideMerge(RecordLogs, testLogging(ConfigProvider.fromMap(new Map(Object.entries(env))))))
  )

describe("test logging", () => {
  it.live("without LOG_LEVEL, Info is dropped and Warning kept; LOG_LEVEL=Info keeps both", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(yield* loggedWith({}), ["something odd"])
      assert.deepStrictEqual(yield* loggedWith({ LOG_LEVEL: "Info" }), ["routine detail", "something odd"])
      assert.deepStrictEqual(yield* loggedWith({ LOG_LEVEL: "Warning" }), ["something odd"])
      assert.deepStrictEqual(yield* loggedWith({ LOG_LEVEL: "WARN" }), ["something odd"])
      const refused = yield* Effect.exit(loggedWith({ LOG_LEVEL: "loud" }))
      assert.isTrue(Exit.isFailure(refused) && Cause.pretty(refused.cause).includes("LOG_LEVEL must be one of"))
    }))
})
