import { SqlClient } from "@effect/sql"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer, Ref } from "effect"
import { databaseFromUrl } from "../../../layers/Database.ts"
import { Channel, Signals } from "../../../services/Signals.ts"
import { syncSettings } from "../../support/Connected.ts"
import { waitUntil } from "../../support/Eventually.ts"
import { terminateListeners } from "../../support/Faults.ts"
import { freshDatabase } from "../../support/TestDatabase.ts"

describe("signals after the LISTEN connection dies", () => {
  it.scopedLive("reopen: a signal sent after the listening backend was terminated still arrives", () =>
    Effect.gen(function* () {
      const url = yield* freshDatabase
      const process = () =>
        Layer.build(
          Signals.Default.pipe(
            Layer.provideMerge(databaseFromUrl(url)),
            Layer.provide(syncSettings({ BREIN_SIGNALS_CHECK_SECONDS: "0.5" }))
          )
        )
      const listener = yield* process()
      const sender = yield* process()
      const heard = yield* Ref.make<ReadonlyArray<string>>([])
      yield* Effect.flatMap(Signals, (s) => s.on(Channel.connections, (payload) => Ref.update(heard, (all) => [...all, payload]))).pipe(
        Effect.provide(listener)
      )
      const sql = Context.get(sender, SqlClient.SqlClient)
      assert.isAbove(yield* terminateListeners(sql), 0, "the listening backends were terminated")
      // Signals sent while nobody listens are lost by design; keep sending until one is heard.
      let sent = 0
      yield* waitUntil(
        Effect.flatMap(
          Effect.flatMap(Signals, (s) => s.publish(Channel.connections, `after-${++sent}`)).pipe(Effect.provide(sender)),
          () => Ref.get(heard)
        ),
        (all) => all.some((p) => p.startsWith("after-")),
        { what: "a signal arriving after the LISTEN connection died", every: "50 millis", tries: 200 }
      )
      // Signals flow as soon as LISTEN is back; the process calls it live once its probes on every channel return.
      yield* waitUntil(Effect.flatMap(Signals, (s) => s.live).pipe(Effect.provide(listener)), (live) => live, { what: "LISTEN live again" })
    }), 60_000)
})
