import { Effect, Option } from "effect"
import { Forbidden } from "../../schema/Errors.ts"
import type { ConnectionId } from "../../schema/Ids.ts"
import type { Principal } from "../../schema/Principal.ts"
import { ConnectionLookup } from "../connections/ConnectionLookup.ts"
import type { RegisteredTool } from "../tools/Registry.ts"

/** Step 3: principal → workspace; paid tools need a paid workspace; connector tools need its connection. */
export class Authorize extends Effect.Service<Authorize>()("brein/pipeline/Authorize", {
  effect: Effect.gen(function* () {
    const connections = yield* ConnectionLookup
    const check = Effect.fnUntraced(function* (
      tool: RegisteredTool,
      principal: Principal,
      connectionId: ConnectionId | undefined
    ) {
      const d = tool.descriptor
      if (d.plan === "paid" && principal.plan !== "paid") {
        return yield* Forbidden.planRequired(d.id, principal.workspaceName)
      }
      if (!tool.requiresConnection) return null
      if (connectionId === undefined) {
        return yield* Forbidden.connectionRequired(d.id, d.connector ?? "")
      }
      const found = yield* connections.find(connectionId)
      if (Option.isNone(found) || found.value.workspaceId !== principal.workspaceId) {
        return yield* Forbidden.connectionNotInWorkspace(connectionId)
      }
      if (found.value.connector !== d.connector) {
        return yield* Forbidden.wrongConnector(connectionId, found.value.connector, d.connector ?? "")
      }
      return connectionId
    })
    return { check }
  }),
  dependencies: [ConnectionLookup.Default]
}) {}
