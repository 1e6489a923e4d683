import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Layer, Redacted, Schema, Scope } from "effect"
import { databaseFromUrl } from "../../../layers/Database.ts"
import { SyncJobs } from "../../../services/sync/SyncJobs.ts"
import { drainOnShutdown, listen, serveOn } from "../../../src/http/Server.ts"
import { rut, siiConnection, simulatedServices } from "../../support/Connected.ts"
import { waitUntil } from "../../support/Eventually.ts"
import { monthsAgo } from "../../support/Periods.ts"
import { freshDatabase } from "../../support/TestDatabase.ts"
import { issuePrincipal } from "../../support/TestLayers.ts"
import { raw } from "../mcp/RawHttp.ts"

const Answer = Schema.parseJson(Schema.Struct({
  data: Schema.Struct({ estado: Schema.String }),
  hint: Schema.String
}))

describe("a shutdown while a sync call waits", () => {
  it.scopedLive(
    "answers the call with its jobs as they stand, at once, instead of cutting it off when the grace ends",
    () =>
      Effect.gen(function* () {
        const url = yield* freshDatabase
        const serving = yield* Scope.make()
        // upstreams at their real pace: the SII login alone takes seconds, so the job is still running at the shutdown;
        // a short grace (the settings reach every layer built after them): a call still waiting then is cut off
        const app = yield* Layer.buildWithScope(
          drainOnShutdown.pipe(
            Layer.provideMerge(serveOn(listen(0))),
            Layer.provideMerge(simulatedServices({ BREIN_SHUTDOWN_GRACE_MS: "1000" }, 1)),
            Layer.provideMerge(databaseFromUrl(url))
          ),
          serving
        )
        const { key, principal } = yield* issuePrincipal("paid").pipe(Effect.provide(app))
        const connection = yield* siiConnection(principal, rut(76600021)).pipe(Effect.provide(app))
        const periodo = yield* monthsAgo(1)
        const waiting = yield* raw({
          method: "POST",
          path: "/api/v1/tools/sii.conexion.sincronizar/execute",
          headers: {
            "content-type": "application/json",
            authorization: `Bearer ${Redacted.value(key)}`,
            "x-connect-connection": connection.id
          },
          body: JSON.stringify({ input: { periodo, perspectiva: "ventas", esperar: 20 } })
        }).pipe(Effect.provide(app), Effect.fork)
        const jobs = yield* SyncJobs.pipe(Effect.provide(app))
        yield* waitUntil(jobs.watching, (n) => n === 1, { what: "the call waiting on its sync" })

        // what SIGTERM does: the server's scope closes
        yield* Scope.close(serving, Exit.void)
        const answer = yield* Fiber.join(waiting)
        assert.strictEqual(answer.status, 200, answer.text)
        const { data, hint } = yield* Schema.decodeUnknown(Answer)(answer.text)
        assert.include(["en_cola", "sincronizando"], data.estado, "answered before its sync ended")
        assert.include(hint, "goes on in the background")
      }),
    60_000
  )
})
