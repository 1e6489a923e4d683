import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { BreinApi } from "../../schema/http/Api.ts"
import { CurrentPrincipal } from "../../schema/http/Security.ts"
import { ConnectionCredentials } from "../../services/connections/ConnectionCredentials.ts"
import { Connections } from "../../services/connections/Connections.ts"
import { SyncJobs, toView } from "../../services/sync/SyncJobs.ts"

export const ConnectionsLive = HttpApiBuilder.group(BreinApi, "connections", (handlers) =>
  Effect.gen(function* () {
    const connections = yield* Connections
    const jobs = yield* SyncJobs
    const credentials = yield* ConnectionCredentials
    return handlers
      .handle("create", ({ payload }) => Effect.flatMap(CurrentPrincipal, (principal) => connections.create(principal, payload)))
      .handle("list", () =>
        Effect.flatMap(CurrentPrincipal, (principal) => Effect.map(connections.list(principal), (all) => ({ connections: all })))
      )
      .handle("get", ({ path }) => Effect.flatMap(CurrentPrincipal, (principal) => connections.get(principal, path.id)))
      .handle("updateCredentials", ({ path, payload }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => credentials.replace(principal, path.id, payload, "http"))
      )
      .handle("remove", ({ path }) => Effect.flatMap(CurrentPrincipal, (principal) => connections.remove(principal, path.id)))
      .handle("jobs", ({ path, urlParams }) =>
        Effect.gen(function* () {
          const connection = yield* connections.get(yield* CurrentPrincipal, path.id)
          const rows = yield* jobs.list(connection.id, urlParams.limit ?? 50)
          return { jobs: rows.map(toView) }
        })
      )
  })
)
