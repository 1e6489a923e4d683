import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Layer, Option, Redacted, Schedule } from "effect"
import { databaseFromUrl } from "../../../layers/Database.ts"
import { ConnectionLookup } from "../../../services/connections/ConnectionLookup.ts"
import { Connections } from "../../../services/connections/Connections.ts"
import { SyncJobs } from "../../../services/sync/SyncJobs.ts"
import { Workspaces } from "../../../services/workspace/Workspaces.ts"
import { connectedServices, jobsOf, rut, siiConnection } from "../../support/Connected.ts"
import { freshDatabase } from "../../support/TestDatabase.ts"
import { issuePrincipal } from "../../support/TestLayers.ts"

/** One "process": its own pool, caches, listener and worker over the shared database. */
const processOn = (url: Redacted.Redacted<string>, settings: Readonly<Record<string, string>>) =>
  Layer.build(connectedServices(settings).pipe(Layer.provideMerge(databaseFromUrl(url))))

/** Re-checks `condition` every 20 ms for at most `within`; fails the test when it never holds. */
const eventually = <E, R>(condition: Effect.Effect<boolean, E, R>, within: Duration.DurationInput, what: string) =>
  condition.pipe(
    Effect.filterOrFail((held) => held, () => "not yet" as const),
    Effect.retry(Schedule.spaced("20 millis").pipe(Schedule.upTo(within))),
    Effect.orElse(() => Effect.dieMessage(what))
  )

describe("signals between processes", () => {
  it.scopedLive("a key revoked in one process is refused by another within one second", () =>
    Effect.gen(function* () {
      const url = yield* freshDatabase
      const first = yield* processOn(url, { BREIN_SYNC_WORKER: "false" })
      const second = yield* processOn(url, { BREIN_SYNC_WORKER: "false" })
      const issued = yield* issuePrincipal("paid").pipe(Effect.provide(first))
      const key = Redacted.value(issued.key)
      const authenticates = Effect.flatMap(Workspaces, (w) => w.authenticate(key)).pipe(Effect.isSuccess, Effect.provide(second))
      assert.isTrue(yield* authenticates, "the second process knows (and caches) the key")

      const prefix = key.slice(0, 14)
      yield* Effect.flatMap(Workspaces, (w) => w.revokeByPrefix(prefix)).pipe(Effect.provide(first))
      yield* eventually(Effect.map(authenticates, (ok) => !ok), "1 second", "the second process still accepts the revoked key")
    }))

  it.scopedLive("a deleted connection is forgotten by another process's ownership cache", () =>
    Effect.gen(function* () {
      const url = yield* freshDatabase
      const first = yield* processOn(url, { BREIN_SYNC_WORKER: "false" })
      const second = yield* Layer.build(ConnectionLookup.Default.pipe(Layer.provideMerge(databaseFromUrl(url))))
      const connection = yield* Effect.gen(function* () {
        const { principal } = yield* issuePrincipal("paid")
        return { principal, connection: yield* siiConnection(principal, rut(76300001)) }
      }).pipe(Effect.provide(first))
      const known = Effect.flatMap(ConnectionLookup, (l) => l.find(connection.connection.id)).pipe(
        Effect.map(Option.isSome),
        Effect.provide(second)
      )
      assert.isTrue(yield* known)
      yield* Effect.flatMap(Connections, (c) => c.remove(connection.principal, connection.connection.id)).pipe(Effect.provide(first))
      yield* eventually(Effect.map(known, (found) => !found), "1 second", "the second process still knows the deleted connection")
    }))

  it.scopedLive("a job enqueued by one process wakes another's worker without waiting for its poll", () =>
    Effect.gen(function* () {
      const url = yield* freshDatabase
      const first = yield* processOn(url, { BREIN_SYNC_WORKER: "false" })
      // Polling every ten minutes: only the signal can start the job within the test's time.
      const second = yield* processOn(url, { BREIN_SYNC_POLL_MS: String(Duration.toMillis("10 minutes")) })
      const connectionId = yield* Effect.gen(function* () {
        const { principal } = yield* issuePrincipal("paid")
        const connection = yield* siiConnection(principal, rut(76300002))
        const jobs = yield* SyncJobs
        yield* jobs.enqueue(
          { connectionId: connection.id, workspaceId: principal.workspaceId, connector: "sii" },
          [{ periodo: "2026-10", perspectiva: "compras" }],
          3,
          4
        )
        return connection.id
      }).pipe(Effect.provide(first))
      const claimed = jobsOf(connectionId).pipe(
        Effect.map((jobs) => jobs.length > 0 && jobs.every((j) => j.attempts > 0)),
        Effect.provide(second)
      )
      yield* eventually(claimed, "10 seconds", "the second process's worker never claimed the job")
    }))
})
