import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { CachedRcvDocumento } from "../../../schema/connectors/Sii.ts"
import { rowCheck } from "../../../services/sync/RowCheck.ts"

const check = rowCheck(CachedRcvDocumento)
const encode = Schema.encodeSync(Schema.Array(CachedRcvDocumento))
const decode = Schema.decodeUnknownSync(Schema.Array(CachedRcvDocumento))

const doc = {
  tipoDte: 33,
  folio: 101,
  rutEmisor: "77123456-9",
  rutReceptor: "76543210-3",
  razonSocial: "Constructora Los Robles Ltda",
  fechaEmision: "14/07/2026",
  montoExento: 0,
  montoNeto: 1000,
  montoIva: 190,
  montoTotal: 1190,
  estado: "registro",
  periodo: "2026-07",
  perspectiva: "ventas",
  version: 1
}
const page = (...changes: ReadonlyArray<Record<string, unknown>>) => changes.map((change, i) => ({ ...doc, folio: 101 + i, ...change }))

describe("rowCheck", () => {
  it("passes rows the schema decodes to themselves, optional fields present or absent", () => {
    const rows = page({}, { tipoDocRef: 33, folioRef: 100 }, {
      historial: [{
        version: 1,
        vigenteDesde: "2026-07-01T00:00:00.000Z",
        vigenteHasta: "2026-07-02T00:00:00.000Z",
        valores: { monto_neto: 900 }
      }]
    })
    assert.isTrue(check(rows))
    assert.deepStrictEqual<unknown>(encode(decode(rows)), rows)
  })

  it("refuses what the schema refuses, even when the same value passed on another field or row", () => {
    // a valid RUT with the wrong check digit, after rows whose RUTs were fine
    assert.isFalse(check(page({}, {}, { rutEmisor: "77123456-8" })))
    assert.isFalse(check(page({}, { rutReceptor: "77123456-9" }, { rutReceptor: "7712345-9" })))
    assert.isFalse(check(page({ tipoDte: 0 })))
    assert.isFalse(check(page({}, { montoNeto: 1.5 })))
    assert.isFalse(check(page({ estado: "otro" })))
    assert.isFalse(check(page({ fechaEmision: "31/02/2026" })))
    assert.isFalse(check(page({ tipoDocRef: null })), "an absent ref is left out, not null")
    assert.isFalse(check(page({ id: 7 })), "no field the answer does not have")
    const { razonSocial: _, ...missing } = doc
    assert.isFalse(check([missing]))
    assert.isFalse(check([null]))
  })

  it("takes only struct schemas", () => {
    assert.throws(() => rowCheck(Schema.Array(Schema.String)))
  })
})
