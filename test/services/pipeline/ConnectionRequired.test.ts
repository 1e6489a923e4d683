import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Context, Effect, Layer, Ref, Schema } from "effect"
import { randomBytes } from "node:crypto"
import { ConnectionId } from "../../../schema/Ids.ts"
import { Executor } from "../../../services/pipeline/Executor.ts"
import { Registry } from "../../../services/tools/Registry.ts"
import { connector } from "../../../services/tools/Source.ts"
import { connectedAction } from "../../../services/tools/Tool.ts"
import { TestDatabase } from "../../support/TestDatabase.ts"
import { callContext, issuePrincipal, servicesWith } from "../../support/TestLayers.ts"
import { pure } from "./Fixtures.ts"

/** Every connection a spy handler ran with. */
class Ran extends Context.Tag("test/Ran")<Ran, Ref.Ref<ReadonlyArray<ConnectionId>>>() {}

const spy = connectedAction({
  id: "spy.items.leer",
  family: "spy",
  label: "Spy",
  description: "Records the connection it ran with.",
  plan: "free",
  hints: pure,
  cost: { kind: "free" },
  level: 0,
  stages: [],
  input: Schema.Struct({}),
  output: Schema.Struct({ connectionId: Schema.String }),
  handler: (_input, ctx) =>
    Effect.flatMap(Ran, (ran) => Ref.update(ran, (all) => [...all, ctx.connectionId])).pipe(Effect.as({ connectionId: ctx.connectionId }))
})

const SpyConnector = connector({ id: "spy", label: "Spy", plan: "free", requiresConnection: true, tools: [spy] })
const RanLive = Layer.effect(Ran, Ref.make<ReadonlyArray<ConnectionId>>([]))
const Services = servicesWith(Registry.layer([SpyConnector])).pipe(Layer.provideMerge(RanLive), Layer.provideMerge(TestDatabase))

layer(Services)("a connector tool behind a connection", (it) => {
  it.effect("without a connection it is refused before its handler runs; with its own connection the handler gets it", () =>
    Effect.gen(function* () {
      const executor = yield* Executor
      const ran = yield* Ran
      const sql = yield* SqlClient.SqlClient
      const { principal } = yield* issuePrincipal("free")
      const other = yield* issuePrincipal("free")

      const missing = yield* Effect.flip(executor.call("spy.items.leer", {}, callContext(principal)))
      assert.strictEqual(missing._tag, "Forbidden")
      assert.strictEqual(missing._tag === "Forbidden" ? missing.reason : null, "connection_required")

      const theirs = ConnectionId.make(`conn_${randomBytes(6).toString("hex")}`)
      yield* sql`INSERT INTO connections (id, workspace_id, connector) VALUES (${theirs}, ${other.principal.workspaceId}, 'spy')`
      const foreign = yield* Effect.flip(executor.call("spy.items.leer", {}, callContext(principal, { connectionId: theirs })))
      assert.strictEqual(foreign._tag === "Forbidden" ? foreign.reason : null, "connection_not_in_workspace")
      assert.deepStrictEqual(yield* Ref.get(ran), [], "the handler never ran for a refused call")

      const mine = ConnectionId.make(`conn_${randomBytes(6).toString("hex")}`)
      yield* sql`INSERT INTO connections (id, workspace_id, connector) VALUES (${mine}, ${principal.workspaceId}, 'spy')`
      const response = yield* executor.call("spy.items.leer", {}, callContext(principal, { connectionId: mine }))
      assert.deepStrictEqual(response.data, { connectionId: mine })
      assert.deepStrictEqual(yield* Ref.get(ran), [mine])
    }))
})
