import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import type { Client } from "@modelcontextprotocol/client"
import { Context, Effect, Layer, Queue, Schema } from "effect"
import { servicesWith } from "../../../layers/App.ts"
import { CoreConnector } from "../../../services/connectors/Core.ts"
import { connector } from "../../../services/tools/Source.ts"
import { action } from "../../../services/tools/Tool.ts"
import { Workspaces } from "../../../services/workspace/Workspaces.ts"
import { listen, serveOn } from "../../../src/http/Server.ts"
import { waitUntil } from "../../support/Eventually.ts"
import { TestDatabase } from "../../support/TestDatabase.ts"
import { bearer, connect, connectInProcess, type Era, ERAS, issueKey } from "./McpTestServer.ts"

/** What the held tool's handlers report: the tag of each call when it starts, and when it is interrupted. */
class Held extends Context.Tag("test/mcp/Held")<Held, {
  readonly started: Queue.Queue<string>
  readonly interrupted: Queue.Queue<string>
}>() {}

const HeldLive = Layer.effect(Held, Effect.all({ started: Queue.unbounded<string>(), interrupted: Queue.unbounded<string>() }))

/** A tool whose handler runs until it is interrupted, and says so. */
const HoldConnector = connector({
  id: "hold",
  label: "Hold",
  plan: "free",
  requiresConnection: false,
  tools: [
    action({
      id: "hold.call.wait",
      family: "hold",
      label: "Esperar",
      description: "Waits until the call is canceled",
      plan: "free",
      hints: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
      cost: { kind: "free" },
      level: 0,
      stages: [],
      input: Schema.Struct({ tag: Schema.String }),
      output: Schema.Struct({ tag: Schema.String }),
      handler: (input) =>
        Effect.flatMap(Held, (held) =>
          Queue.offer(held.started, input.tag).pipe(
            Effect.zipRight(Effect.never),
            Effect.onInterrupt(() => Queue.offer(held.interrupted, input.tag))
          ))
    })
  ]
})

const CancelTest = serveOn(listen(0)).pipe(
  Layer.provideMerge(servicesWith([CoreConnector, HoldConnector])),
  Layer.provideMerge(HeldLive),
  Layer.provideMerge(TestDatabase)
)

/** Takes from `queue` until `tag` comes (the queues are shared by the file's tests). */
const awaitTag = (queue: Queue.Queue<string>, tag: string): Effect.Effect<void> =>
  Effect.flatMap(Queue.take(queue), (taken) => (taken === tag ? Effect.void : awaitTag(queue, tag)))

const rowsOf = (workspaceId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ outcome: string; errorTag: string | null; surface: string }>`
      SELECT outcome, error_tag, surface FROM audit_log WHERE workspace_id = ${workspaceId} AND tool_id = 'hold.call.wait'`)

const workspaceOf = (key: string) => Effect.flatMap(Workspaces, (w) => w.authenticate(key))

/**
 * Calls the held tool with `tag`, waits until its handler runs, lets `leave` cancel it, and checks that
 * the handler was interrupted and the call left its row, error Interrupted, on the MCP surface.
 */
const cancelled = (client: Client, workspaceId: string, tag: string, leave: (controller: AbortController) => Effect.Effect<void>) =>
  Effect.gen(function* () {
    const held = yield* Held
    const controller = new AbortController()
    const answer = client.callTool({ name: "hold.call.wait", arguments: { tag } }, { signal: controller.signal })
    answer.catch(() => undefined)
    yield* awaitTag(held.started, tag)
    yield* leave(controller)
    yield* awaitTag(held.interrupted, tag)
    const rows = yield* waitUntil(rowsOf(workspaceId), (rows) => rows.length > 0, { what: "the canceled call's audit row" })
    assert.deepStrictEqual(rows, [{ outcome: "error", errorTag: "Interrupted", surface: "mcp" }])
  })

/** `brein mcp`'s server in process for a new workspace, with a client of `era`. */
const inProcessStdio = (era: Era, workspace: string) =>
  Effect.gen(function* () {
    const principal = yield* Effect.flatMap(issueKey(workspace, "free"), workspaceOf)
    return { client: yield* connectInProcess(era, principal), workspaceId: principal.workspaceId }
  })

const abort = (controller: AbortController) => Effect.sync(() => controller.abort("the user canceled"))

layer(CancelTest, { excludeTestServices: true, timeout: 60_000 })("an MCP call whose client cancels it or leaves", (it) => {
  for (const era of ERAS) {
    it.scoped(`stdio, ${era}: notifications/cancelled interrupts the call, which leaves its Interrupted row`, () =>
      Effect.gen(function* () {
        const { client, workspaceId } = yield* inProcessStdio(era, `cancel-stdio-${era}`)
        yield* cancelled(client, workspaceId, `stdio-${era}`, abort)
        // The server goes on serving the connection.
        const after = yield* Effect.promise(() => client.callTool({ name: "core.timestamp.now", arguments: {} }))
        assert.notStrictEqual(after.isError, true)
      }))

    it.scoped(`stdio, ${era}: a client that closes the connection mid-call interrupts the call`, () =>
      Effect.gen(function* () {
        const { client, workspaceId } = yield* inProcessStdio(era, `close-stdio-${era}`)
        yield* cancelled(client, workspaceId, `close-stdio-${era}`, () => Effect.promise(() => client.close()))
      }))

    it.scoped(`HTTP, ${era}: a client that closes its connection mid-call interrupts the call`, () =>
      Effect.gen(function* () {
        const key = yield* issueKey(`cancel-close-${era}`, "free")
        const principal = yield* workspaceOf(key)
        const client = yield* connect(era, bearer(key))
        yield* cancelled(client, principal.workspaceId, `close-${era}`, () => Effect.promise(() => client.close()))
      }))
  }

  it.scoped("HTTP, modern: a client that cancels its request (it drops the request's stream) interrupts the call", () =>
    Effect.gen(function* () {
      const key = yield* issueKey("cancel-modern", "free")
      const principal = yield* workspaceOf(key)
      const client = yield* connect("modern", bearer(key))
      yield* cancelled(client, principal.workspaceId, "cancel-modern", abort)
      // The same client goes on calling.
      const after = yield* Effect.promise(() => client.callTool({ name: "core.timestamp.now", arguments: {} }))
      assert.notStrictEqual(after.isError, true)
    }))
})
