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
        return yield* new Forbidden({ reason: "plan_required", message: `${d.id} needs a paid workspace; "${principal.workspaceName}" is on the free plan` })
      }
      if (!tool.requiresConnection) return null
      if (connectionId === undefined) {
        return yield* new Forbidden({ reason: "connection_required", message: `${d.id} needs a ${d.connector} connection: send its id in the X-Connect-Connection header` })
      }
      const found = yield* connections.find(connectionId)
      if (Option.isNone(found) || found.value.workspaceId !== principal.workspaceId) {
        return yield* new Forbidden({ reason: "connection_not_in_workspace", message: `connection ${connectionId} does not belong to this workspace` })
      }
      if (found.value.connector !== d.connector) {
        return yield* new Forbidden({ reason: "connection_wrong_connector", message: `connection ${connectionId} is a ${found.value.connector} connection, not ${d.connector}` })
      }
      return connectionId
    })
    return { check }
  }),
  dependencies: [ConnectionLookup.Default]
}) {}
