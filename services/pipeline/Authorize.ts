import { SqlClient } from "@effect/sql"
import { Effect, Either, Option } from "effect"
import { Forbidden } from "../../schema/Errors.ts"
import type { ConnectionId } from "../../schema/Ids.ts"
import type { HandlerError } from "../../schema/tools/ToolError.ts"
import { ConnectionLookup } from "../connections/ConnectionLookup.ts"
import type { DirectPolicy } from "../tools/Policy.ts"
import type { CallInfo, Committed, Metered } from "../tools/Tool.ts"
import type { Authorized, Bound, Decoded } from "./Call.ts"
import { pure, step } from "./Step.ts"

/** A call without a persistence buffer commits its answer as is and runs nothing after the commit. */
const answered = (answer: unknown): Committed<never> => ({ answer, afterCommit: Option.none() })

const openBound = (
  policy: DirectPolicy,
  prepared: { readonly run: (info: CallInfo) => Effect.Effect<unknown, HandlerError>; readonly metered?: Metered<never> }
): Bound => {
  const bound = { policy, connectionId: null, run: (info: CallInfo) => Effect.map(prepared.run(info), answered) }
  return prepared.metered === undefined ? bound : { ...bound, metered: prepared.metered }
}

/** Step 3: principal → workspace; paid tools need a paid workspace; connector tools need its connection. */
export class Authorize extends Effect.Service<Authorize>()("brein/pipeline/Authorize", {
  effect: Effect.gen(function* () {
    const connections = yield* ConnectionLookup
    const sql = yield* SqlClient.SqlClient

    /** The connection the call names, once it is known to belong to the workspace and to the tool's connector. */
    const connectionOf = Effect.fn("Authorize.connection")(function* (call: Decoded) {
      const d = call.tool.descriptor
      const connectionId = call.context.connectionId
      if (connectionId === undefined) return yield* Forbidden.connectionRequired(d.id, d.connector ?? "")
      const found = yield* connections.find(connectionId)
      if (Option.isNone(found) || found.value.workspaceId !== call.context.principal.workspaceId) {
        return yield* Forbidden.connectionNotInWorkspace(connectionId)
      }
      if (found.value.connector !== d.connector) {
        return yield* Forbidden.wrongConnector(connectionId, found.value.connector, d.connector ?? "")
      }
      return connectionId
    })

    /** A tool's plan against the workspace's: the one check every call makes. */
    const planOf = (call: Decoded): Either.Either<void, Forbidden> => {
      const d = call.tool.descriptor
      const principal = call.context.principal
      return d.plan === "paid" && principal.plan !== "paid"
        ? Either.left(Forbidden.planRequired(d.id, principal.workspaceName))
        : Either.void
    }

    // Part of the authorize step, inside its span: a span of its own would cost more than it does.
    const bind = Effect.fnUntraced(function* (call: Decoded): Effect.fn.Return<Bound, Forbidden> {
      const { decoded } = call
      if (decoded.policy === "read") {
        const connectionId: ConnectionId = yield* connectionOf(call)
        const { workspaceId } = call.context.principal
        const connector = call.tool.descriptor.connector ?? ""
        const run = decoded.prepared.run
        return { policy: "read", connectionId, run: (info) => run(info, { sql, workspaceId, connectionId, connector }) }
      }
      const prepared = decoded.prepared
      switch (prepared.access) {
        case "open":
          return openBound(decoded.policy, prepared)
        case "connected": {
          const connectionId = yield* connectionOf(call)
          return { policy: decoded.policy, connectionId, run: (info) => Effect.map(prepared.run(info, connectionId), answered) }
        }
      }
    })

    // A call that names a connection looks it up (SQL, in spans under this step's).
    const looksUp = step("Executor.authorize")(Effect.fnUntraced(function* (call: Decoded) {
      yield* planOf(call)
      return { ...call, bound: yield* bind(call) } satisfies Authorized
    }))
    // Any other only compares: a tool without a connection runs as it was prepared.
    const compares = pure("Executor.authorize")((call: Decoded) =>
      Either.flatMap(planOf(call), () => {
        const { decoded } = call
        return decoded.policy !== "read" && decoded.prepared.access === "open"
          ? Either.right({ ...call, bound: openBound(decoded.policy, decoded.prepared) } satisfies Authorized)
          : Either.left(Forbidden.connectionRequired(call.tool.descriptor.id, call.tool.descriptor.connector ?? ""))
      })
    )
    const check = (call: Decoded) => (call.tool.requiresConnection ? looksUp(call) : compares(call))
    return { check }
  }),
  dependencies: [ConnectionLookup.Default]
}) {}
