import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Logger, LogLevel } from "effect"
import { databaseFromUrl } from "../../../layers/Database.ts"
import { formatRut } from "../../../schema/upstream/Rut.ts"
import { maskRut } from "../../../services/upstream/MaskedRut.ts"
import { allFinished, bancoConnection, execute, rut, siiConnection, simulatedServices, waitForJobs } from "../../support/Connected.ts"
import { monthsAgo } from "../../support/Periods.ts"
import { freshDatabase } from "../../support/TestDatabase.ts"
import { issuePrincipal } from "../../support/TestLayers.ts"

const CLAVE = "Zq7-secreta-del-usuario"

/** Every line logged at Debug and above, in the program's own format. */
const captureDebug = () => {
  const lines: Array<string> = []
  const layer = Layer.merge(
    Logger.replace(Logger.defaultLogger, Logger.map(Logger.logfmtLogger, (line) => void lines.push(line))),
    Logger.minimumLogLevel(LogLevel.Debug)
  )
  return { lines, layer }
}

describe("maskRut", () => {
  it("keeps the last three digits and the check digit, whatever the form", () => {
    assert.strictEqual(maskRut("77123456-9"), "***456-9")
    assert.strictEqual(maskRut("77.123.456-9"), "***456-9")
    assert.strictEqual(maskRut("10000013-k"), "***013-K")
    assert.strictEqual(maskRut("123456785"), "***678-5")
  })
})

describe("Debug logs of a sync", () => {
  it.scopedLive("never carry a user's full RUT nor the clave: sessions are logged with the masked RUT", () =>
    Effect.gen(function* () {
      const url = yield* freshDatabase
      const logs = captureDebug()
      const services = yield* Layer.build(simulatedServices().pipe(Layer.provideMerge(databaseFromUrl(url)), Layer.provide(logs.layer)))
      const users = { sii: rut(76770001), banco: rut(77770001), refused: rut(78770001) }
      yield* Effect.gen(function* () {
        const { principal } = yield* issuePrincipal("paid")
        const periodo = yield* monthsAgo(1)
        const sii = yield* siiConnection(principal, formatRut(users.sii), CLAVE)
        const banco = yield* bancoConnection(principal, users.banco, CLAVE)
        const refused = yield* bancoConnection(principal, users.refused, "invalida")
        yield* execute(principal, "sii.conexion.sincronizar", { periodo, perspectiva: "ventas", esperar: 0 }, sii.id)
        yield* execute(principal, "banco.conexion.sincronizar", { periodo, esperar: 0 }, banco.id)
        yield* execute(principal, "banco.conexion.sincronizar", { periodo, esperar: 0 }, refused.id)
        for (const id of [sii.id, banco.id, refused.id]) yield* waitForJobs(id, allFinished)
      }).pipe(Effect.provide(services))

      const text = logs.lines.join("\n")
      for (const user of Object.values(users)) {
        const body = user.split("-")[0] ?? user
        assert.notInclude(text, body, `the RUT ${user} reached a log line`)
        assert.notInclude(text, formatRut(user).split("-")[0] ?? user, `the RUT ${user} reached a log line`)
        assert.include(text, `rut=${maskRut(user)}`, "the sessions of every user are logged, masked")
      }
      assert.notInclude(text, CLAVE)
    }), 60_000)
})
