import { describe, expectTypeOf, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { action, type Tool } from "../../services/tools/Tool.ts"
import { BancoUpstream } from "../../services/upstream/BancoUpstream.ts"
import { SiiUpstream } from "../../services/upstream/SiiUpstream.ts"

const fields = {
  family: "probe",
  label: "Probe",
  description: "A probe tool for the type tests.",
  plan: "paid",
  hints: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  cost: { kind: "read" },
  level: 0,
  stages: [],
  input: Schema.Struct({}),
  output: Schema.Struct({ sessions: Schema.Int })
} as const

const logsIntoSii = Effect.map(SiiUpstream, () => ({ sessions: 1 }))
const logsIntoBanco = Effect.map(BancoUpstream, () => ({ sessions: 1 }))

// The twin of the rejected tools below, without an upstream client: it compiles, so the errors below are the guard's.
export const consultarFromCache = action({
  ...fields,
  id: "sii.rcv.consultar",
  handler: () => Effect.succeed({ sessions: 0 })
})

// @ts-expect-error a .consultar tool reads the cache: its handler must not require the SII client
export const consultarLive = action({
  ...fields,
  id: "sii.rcv.consultar",
  handler: () => logsIntoSii
})

// @ts-expect-error the guard covers every upstream client, not only SII's
export const consultarBanco = action({
  ...fields,
  id: "banco.movimientos.consultar",
  handler: () => logsIntoBanco
})

// @ts-expect-error also a nested resource (sii.rcv.resumen.consultar)
export const resumenLive = action({
  ...fields,
  id: "sii.rcv.resumen.consultar",
  handler: () => logsIntoSii
})

// An action tool that is not a .consultar (e.g. a live lookup of a free source) may use a client.
export const obtenerLive = action({
  ...fields,
  id: "probe.valor.obtener",
  handler: () => logsIntoSii
})

describe(".consultar guard (types)", () => {
  it("a non-.consultar action tool keeps the upstream client in its requirements", () => {
    expectTypeOf(obtenerLive).toEqualTypeOf<Tool<SiiUpstream>>()
    expectTypeOf(consultarFromCache).toEqualTypeOf<Tool<never>>()
  })
})
