import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { SiiSimulator } from "../../../services/upstream/SiiSimulator.ts"
import { SII_SCENARIOS, SiiUpstream } from "../../../services/upstream/SiiUpstream.ts"
import { setClock, siiCredentials, syncPeriod, tagAndReason } from "./helpers.ts"

const instant = SiiSimulator.layerWith({ timeScale: 0 })
const AURORA = "77123456-9"

const loginWith = (clave: string) =>
  Effect.gen(function* () {
    const sii = yield* SiiUpstream
    return yield* Effect.scoped(Effect.flatMap(sii.login(siiCredentials(AURORA, clave)), (s) => syncPeriod(s, "2026-07", "compras")))
  })

describe("SiiSimulator scripted failures", () => {
  it("documents every scenario for the README", () => {
    assert.deepStrictEqual(SII_SCENARIOS.map((s) => s.clave), [
      "invalida",
      "no_disponible",
      "en_uso",
      "limite",
      "expira",
      "parcial",
      "cambia"
    ])
  })

  it.effect("maps login failures to typed errors with the product's reasons", () =>
    Effect.gen(function* () {
      yield* setClock("2026-08-06T15:00:00Z")
      const invalid = yield* Effect.flip(loginWith("invalida"))
      const unavailable = yield* Effect.flip(loginWith("no_disponible"))
      const inUse = yield* Effect.flip(loginWith("en_uso"))
      const limited = yield* Effect.flip(loginWith("limite"))
      assert.deepStrictEqual(tagAndReason(invalid), ["UpstreamCredentialsInvalid", "credenciales_invalidas"])
      assert.deepStrictEqual(tagAndReason(unavailable), ["UpstreamUnavailable", "upstream_no_disponible"])
      assert.deepStrictEqual(tagAndReason(inUse), ["UpstreamSessionInUse", "sesion_en_uso"])
      assert.deepStrictEqual(tagAndReason(limited), ["UpstreamRateLimited", "limite_de_tasa"])
      if (unavailable._tag === "UpstreamUnavailable") assert.strictEqual(unavailable.retryAfterSeconds, 300)
      if (limited._tag === "UpstreamRateLimited") assert.strictEqual(limited.retryAfterSeconds, 300)
      assert.isTrue(invalid.message.length > 0)
      const log = yield* (yield* SiiSimulator).sessions
      assert.deepStrictEqual(log.map((e) => [e.kind, e.reason]), [
        ["rejected", "credenciales_invalidas"],
        ["rejected", "upstream_no_disponible"],
        ["rejected", "sesion_en_uso"],
        ["rejected", "limite_de_tasa"]
      ])
    }).pipe(Effect.provide(instant)))

  it.effect("expira: the session expires mid-sync once; a new login continues and gets the same data", () =>
    Effect.gen(function* () {
      yield* setClock("2026-08-06T15:00:00Z")
      const sii = yield* SiiUpstream
      const credentials = siiCredentials(AURORA, "expira")
      const error = yield* Effect.scoped(
        Effect.gen(function* () {
          const session = yield* sii.login(credentials)
          const resumen = yield* session.resumen("2026-07", "compras")
          const first = resumen.tipos[0]?.tipoDte ?? 33
          const expired = yield* Effect.flip(session.detalle("2026-07", "compras", first))
          const after = yield* Effect.flip(session.resumen("2026-07", "compras"))
          assert.strictEqual(after._tag, "UpstreamSessionExpired")
          const again = yield* sii.login(credentials)
          const { docs } = yield* syncPeriod(again, "2026-07", "compras")
          assert.isAbove(docs.length, 0)
          return expired
        })
      )
      assert.deepStrictEqual(tagAndReason(error), ["UpstreamSessionExpired", "sesion_expirada"])
      const reference = yield* loginWith("normal")
      const third = yield* loginWith("expira")
      assert.strictEqual(JSON.stringify(third), JSON.stringify(reference))
      const log = yield* (yield* SiiSimulator).sessions
      assert.deepStrictEqual(log.map((e) => e.kind), ["start", "end", "start", "end", "start", "end", "start", "end"])
    }).pipe(Effect.provide(instant)))

  it.effect("parcial: one document type fails every time, the others are served", () =>
    Effect.gen(function* () {
      yield* setClock("2026-08-06T15:00:00Z")
      const sii = yield* SiiUpstream
      const outcome = yield* Effect.scoped(
        Effect.gen(function* () {
          const session = yield* sii.login(siiCredentials(AURORA, "parcial"))
          const resumen = yield* session.resumen("2026-07", "compras")
          return yield* Effect.forEach(resumen.tipos, (t) => Effect.either(session.detalle("2026-07", "compras", t.tipoDte)))
        })
      )
      const failed = outcome.filter((e) => e._tag === "Left")
      assert.strictEqual(failed.length, 1)
      assert.isAbove(outcome.length, 1)
      const [first] = failed
      if (first?._tag === "Left") {
        assert.deepStrictEqual(tagAndReason(first.left), ["UpstreamPartial", "sincronizacion_parcial"])
      }
    }).pipe(Effect.provide(instant)))
})
