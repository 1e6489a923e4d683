import { SqlClient } from "@effect/sql"
import { assert, describe, it } from "@effect/vitest"
import { Cause, Context, Effect, Exit, Layer, type Redacted } from "effect"
import { databaseFromUrl } from "../../../layers/Database.ts"
import { Connections } from "../../../services/connections/Connections.ts"
import { connectedServices, execute, rut, siiConnection } from "../../support/Connected.ts"
import { waitUntil } from "../../support/Eventually.ts"
import { terminateListeners } from "../../support/Faults.ts"
import { freshDatabase } from "../../support/TestDatabase.ts"
import { issuePrincipal } from "../../support/TestLayers.ts"

// The ownership cache's TTL is 30 s: the checks below give up after 5 s, so only a signal (or no cache) passes them.
const SETTINGS = { BREIN_SYNC_WORKER: "false", BREIN_SIGNALS_CHECK_SECONDS: "0.5" }

const processOn = (url: Redacted.Redacted<string>) =>
  Layer.build(connectedServices(SETTINGS).pipe(Layer.provideMerge(databaseFromUrl(url))))

/** How a call ended: ok, a typed error (its tag), or a defect (an empty 500 on the wire). */
const outcome = <A, E extends { readonly _tag: string }, R>(call: Effect.Effect<A, E, R>) =>
  Effect.map(
    Effect.exit(call),
    (exit) => Exit.isSuccess(exit) ? "ok" : Cause.failureOption(exit.cause).pipe((f) => (f._tag === "Some" ? f.value._tag : "defect"))
  )

const scenario = (killListeners: boolean) =>
  Effect.gen(function* () {
    const url = yield* freshDatabase
    const a = yield* processOn(url)
    const b = yield* processOn(url)
    const { principal, connection } = yield* Effect.gen(function* () {
      const { principal } = yield* issuePrincipal("paid")
      return { principal, connection: yield* siiConnection(principal, rut(killListeners ? 76500002 : 76500001)) }
    }).pipe(Effect.provide(a))
    const consultar = outcome(execute(principal, "sii.rcv.consultar", { periodo: "2026-10", perspectiva: "ventas" }, connection.id)).pipe(
      Effect.provide(b)
    )
    const sincronizar = outcome(execute(principal, "sii.conexion.sincronizar", { periodo: "2026-10", esperar: 0 }, connection.id)).pipe(
      Effect.provide(b)
    )
    assert.deepStrictEqual([yield* consultar, yield* sincronizar], ["ok", "ok"], "process B knows (and caches) the connection")
    if (killListeners) {
      const sql = Context.get(a, SqlClient.SqlClient)
      assert.isAbove(yield* terminateListeners(sql), 0, "the LISTEN connections were terminated")
    }
    yield* Effect.flatMap(Connections, (c) => c.remove(principal, connection.id)).pipe(Effect.provide(a))
    const seen: Array<string> = []
    const both = Effect.map(Effect.all([consultar, sincronizar]), (pair) => {
      seen.push(...pair)
      return pair
    })
    yield* waitUntil(both, ([c, s]) => c === "Forbidden" && s === "Forbidden", {
      what: "process B refusing the deleted connection",
      tries: 200
    })
    assert.notInclude(seen, "defect", "process B never failed unexpectedly (an empty 500)")
    assert.notInclude(seen, "ToolFailed", "process B never answered 500")
  })

describe("a connection deleted in one process", () => {
  it.scopedLive("is refused by another process on consultar and sincronizar, typed, never a 500", () => scenario(false), 60_000)

  it.scopedLive("is refused by another process even when that process's LISTEN connection had died", () => scenario(true), 60_000)
})
