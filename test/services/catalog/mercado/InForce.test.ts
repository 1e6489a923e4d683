import { assert, describe, it } from "@effect/vitest"
import { RISK_STATUSES } from "../../../../schema/catalog/MercadoFields.ts"
import { severityOf } from "../../../../services/catalog/mercado/AggregatesRisk.ts"
import { inForce } from "../../../../services/catalog/mercado/InForce.ts"

const TODAY = "2026-10-31"

describe("inForce", () => {
  it("desvirtuado and sentencia_favorable are never in force; every other status is until its end date", () => {
    const open = Object.values(RISK_STATUSES).flat().map((status) => [status, inForce({ status, endsOn: null }, TODAY)])
    assert.deepStrictEqual(
      open.filter(([, on]) => !on).map(([status]) => status),
      ["desvirtuado", "sentencia_favorable"]
    )
    assert.isFalse(inForce({ status: "sentencia_favorable", endsOn: "2030-01-01" }, TODAY))
    assert.isTrue(inForce({ status: "inhabilitacion", endsOn: TODAY }, TODAY))
    assert.isFalse(inForce({ status: "inhabilitacion", endsOn: "2026-10-30" }, TODAY))
  })

  it("a finding not in force is info, whatever its list", () => {
    assert.strictEqual(severityOf("sat_69b", "sentencia_favorable", null, TODAY), "info")
    assert.strictEqual(severityOf("sat_69b", "desvirtuado", null, TODAY), "info")
    assert.strictEqual(severityOf("sat_69b", "presunto", null, TODAY), "high")
  })
})
