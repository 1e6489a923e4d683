import { describe, expectTypeOf, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import type { ConnectionId } from "../../schema/Ids.ts"
import type { RegistryInvalid } from "../../services/tools/Invariants.ts"
import { Persist, type PersistApi } from "../../services/tools/Persist.ts"
import { Registry, type RegistryApi } from "../../services/tools/Registry.ts"
import { connector } from "../../services/tools/Source.ts"
import { action, connectedAction, read, type Tool } from "../../services/tools/Tool.ts"

const fields = {
  family: "probe",
  label: "Probe",
  description: "A probe tool for the type tests.",
  plan: "paid",
  hints: { readOnly: false, destructive: false, idempotent: true, openWorld: true },
  cost: { kind: "read" },
  level: 0,
  stages: [],
  input: Schema.Struct({}),
  output: Schema.Struct({ written: Schema.Int })
} as const

const writesThroughPersist = Effect.gen(function* () {
  const persist = yield* Persist
  return { written: persist.workspaceId.length }
})

// The twin of the rejected tool below, without Persist: it compiles, so the error below is the guard's.
export const actionWithoutPersist = action({
  ...fields,
  id: "probe.items.consultar",
  handler: () => Effect.succeed({ written: 0 })
})

// @ts-expect-error an action tool whose handler requires Persist does not compile
export const actionWithPersist = action({
  ...fields,
  id: "probe.items.consultar",
  handler: () => writesThroughPersist
})

export const readWithPersist = read({
  ...fields,
  id: "probe.conexion.sincronizar",
  handler: () => writesThroughPersist
})

describe("plane guard (types)", () => {
  it("an action tool's ctx.persist is null", () => {
    action({
      ...fields,
      id: "probe.items.consultar",
      handler: (_input, ctx) => {
        expectTypeOf(ctx.persist).toEqualTypeOf<null>()
        return Effect.succeed({ written: 0 })
      }
    })
  })

  it("a read tool's ctx.persist is the PersistApi and it may yield* Persist", () => {
    read({
      ...fields,
      id: "probe.conexion.sincronizar",
      handler: (_input, ctx) => {
        expectTypeOf(ctx.persist).toEqualTypeOf<PersistApi>()
        return writesThroughPersist
      }
    })
    expectTypeOf(readWithPersist).toEqualTypeOf<Tool<Persist>>()
    expectTypeOf(actionWithoutPersist).toEqualTypeOf<Tool<never>>()
  })

  it("the registry supplies Persist itself: a registry with a read tool needs nothing from outside", () => {
    const probe = connector({
      id: "probe",
      label: "Probe",
      plan: "paid",
      requiresConnection: true,
      tools: [readWithPersist, actionWithoutPersist]
    })
    expectTypeOf(Registry.make([probe])).toEqualTypeOf<Effect.Effect<RegistryApi, RegistryInvalid, never>>()
  })
})

describe("connected tools", () => {
  it("a connected tool's handler gets a ConnectionId, never null; an open tool's gets null", () => {
    connectedAction({
      ...fields,
      id: "probe.cuentas.consultar",
      hints: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
      handler: (_input, ctx) => {
        expectTypeOf(ctx.connectionId).toEqualTypeOf<ConnectionId>()
        return Effect.succeed({ written: ctx.connectionId.length })
      }
    })
    action({
      ...fields,
      id: "probe.notas.consultar",
      handler: (_input, ctx) => {
        expectTypeOf(ctx.connectionId).toEqualTypeOf<null>()
        // @ts-expect-error an open tool has no connection to read
        return Effect.succeed({ written: ctx.connectionId.length })
      }
    })
  })

  it("what a read tool does after its commit cannot require Persist", () => {
    const afterWithPersist = read({
      ...fields,
      id: "probe.conexion.sincronizar",
      handler: () => Effect.succeed({ written: 0 }),
      afterCommit: () => writesThroughPersist
    })
    // @ts-expect-error the guard turns the tool into a type no connector accepts
    connector({ id: "probe", label: "Probe", plan: "paid", requiresConnection: true, tools: [afterWithPersist] })
  })
})
