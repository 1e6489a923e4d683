import { assert, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { randomBytes } from "node:crypto"
import { Board, type BoardItem } from "../../../schema/catalog/Session.ts"
import type { Principal, Surface } from "../../../schema/Principal.ts"
import { Boards } from "../../../services/catalog/Boards.ts"
import { Executor } from "../../../services/pipeline/Executor.ts"
import { callContext, issuePrincipal, ServicesTest } from "../../support/TestLayers.ts"

const decodeBoard = Schema.decodeUnknown(Board)
const newSession = () => `sess_${randomBytes(6).toString("hex")}`

const item = (id: string, kind: BoardItem["kind"] = "company"): BoardItem => ({
  id,
  kind,
  label: `label ${id}`,
  ref: `companies_search:req_${id}`
})

/** A call made inside a chat session, the way Luna makes it. */
const inSession = (principal: Principal, sessionId: string | undefined, surface: Surface = "luna") => ({
  ...callContext(principal, { surface }),
  ...(sessionId === undefined ? {} : { sessionId })
})

const call = (toolId: string, input: unknown, principal: Principal, sessionId: string | undefined, surface: Surface = "luna") =>
  Effect.flatMap(Executor, (executor) => executor.call(toolId, input, inSession(principal, sessionId, surface)))

const board = (principal: Principal, sessionId: string) =>
  Effect.flatMap(call("board_read", {}, principal, sessionId), (response) => decodeBoard(response.data))

const select = (principal: Principal, sessionId: string, input: unknown) =>
  Effect.flatMap(call("selection_update", input, principal, sessionId), (response) => decodeBoard(response.data))

layer(ServicesTest)("session tools in process", (it) => {
  it.effect("board_read shows what the chat put on the board, with refs; an empty session has an empty board", () =>
    Effect.gen(function* () {
      const { principal } = yield* issuePrincipal("free")
      const sessionId = newSession()
      assert.deepStrictEqual(yield* board(principal, sessionId), {
        ref: `board:${sessionId}@v0`,
        items: [],
        selected: [],
        total: 0,
        selected_total: 0,
        version: 0
      })
      const boards = yield* Boards
      yield* boards.show(principal, sessionId, [item("co_a"), item("pe_b", "person")])
      // a shown item keeps its place; a new one goes after
      yield* boards.show(principal, sessionId, [item("co_c"), item("co_a")])
      const shown = yield* board(principal, sessionId)
      assert.deepStrictEqual(shown.items, [item("co_a"), item("pe_b", "person"), item("co_c")])
      assert.deepInclude(shown, { total: 3, selected_total: 0, version: 2, ref: `board:${sessionId}@v2` })
      assert.strictEqual(shown.items[1]?.ref, "companies_search:req_pe_b")
    }))

  it.effect("selection_update replaces, adds and removes, in board order; an id not on the board is InvalidInput and changes nothing", () =>
    Effect.gen(function* () {
      const { principal } = yield* issuePrincipal("paid")
      const sessionId = newSession()
      yield* (yield* Boards).show(principal, sessionId, [item("co_a"), item("co_b"), item("co_c"), item("co_d")])

      const replaced = yield* select(principal, sessionId, { ids: ["co_c", "co_a"] })
      assert.deepStrictEqual(replaced.selected, ["co_a", "co_c"])
      assert.strictEqual(replaced.selected_total, 2)
      const added = yield* select(principal, sessionId, { ids: ["co_d", "co_a"], mode: "add" })
      assert.deepStrictEqual(added.selected, ["co_a", "co_c", "co_d"])
      const removed = yield* select(principal, sessionId, { ids: ["co_a", "co_b"], mode: "remove" })
      assert.deepStrictEqual(removed.selected, ["co_c", "co_d"])
      assert.strictEqual(removed.version, 4)
      const replacedAgain = yield* select(principal, sessionId, { ids: ["co_b"], mode: "replace" })
      assert.deepStrictEqual(replacedAgain.selected, ["co_b"])

      const refused = yield* Effect.flip(select(principal, sessionId, { ids: ["co_a", "co_zz", "pe_yy"], mode: "add" }))
      assert.strictEqual(refused._tag, "InvalidInput")
      if (refused._tag === "InvalidInput") {
        assert.deepStrictEqual(refused.issues, [
          { path: "input.ids", message: "co_zz is not on the board" },
          { path: "input.ids", message: "pe_yy is not on the board" }
        ])
      }
      const after = yield* board(principal, sessionId)
      assert.deepStrictEqual(after.selected, ["co_b"])
      assert.strictEqual(after.version, replacedAgain.version, "a refused update writes nothing")

      const badMode = yield* Effect.flip(select(principal, sessionId, { ids: ["co_a"], mode: "toggle" }))
      assert.strictEqual(badMode._tag, "InvalidInput")
    }))

  it.effect("showing more items keeps the selection; both tools refuse a call without a session: Forbidden in_process_only", () =>
    Effect.gen(function* () {
      const { principal } = yield* issuePrincipal("free")
      const sessionId = newSession()
      const boards = yield* Boards
      yield* boards.show(principal, sessionId, [item("co_a"), item("co_b")])
      yield* select(principal, sessionId, { ids: ["co_b"] })
      yield* boards.show(principal, sessionId, [item("co_c")])
      assert.deepStrictEqual((yield* board(principal, sessionId)).selected, ["co_b"])

      for (const surface of ["luna", "library"] as const) {
        for (const [toolId, input] of [["board_read", {}], ["selection_update", { ids: ["co_a"] }]] as const) {
          const refused = yield* Effect.flip(call(toolId, input, principal, undefined, surface))
          assert.strictEqual(refused._tag, "Forbidden", `${toolId} ${surface}`)
          if (refused._tag === "Forbidden") assert.strictEqual(refused.reason, "in_process_only", `${toolId} ${surface}`)
        }
      }
      assert.deepStrictEqual((yield* board(principal, sessionId)).selected, ["co_b"])
    }))

  it.effect("sessions do not see each other's boards, nor does another workspace's session of the same id", () =>
    Effect.gen(function* () {
      const mine = yield* issuePrincipal("paid")
      const theirs = yield* issuePrincipal("paid")
      const sessionId = newSession()
      const other = newSession()
      const boards = yield* Boards
      yield* boards.show(mine.principal, sessionId, [item("co_mine")])
      yield* select(mine.principal, sessionId, { ids: ["co_mine"] })
      yield* boards.show(mine.principal, other, [item("co_other")])
      yield* boards.show(theirs.principal, sessionId, [item("co_theirs")])

      assert.deepStrictEqual((yield* board(mine.principal, sessionId)).items.map((i) => i.id), ["co_mine"])
      assert.deepStrictEqual((yield* board(mine.principal, other)).items.map((i) => i.id), ["co_other"])
      assert.deepStrictEqual((yield* board(mine.principal, other)).selected, [])
      const foreign = yield* board(theirs.principal, sessionId)
      assert.deepStrictEqual(foreign.items.map((i) => i.id), ["co_theirs"])
      assert.deepStrictEqual(foreign.selected, [])

      // an id on my board is not on theirs
      const refused = yield* Effect.flip(select(theirs.principal, sessionId, { ids: ["co_mine"] }))
      assert.strictEqual(refused._tag, "InvalidInput")
      const cross = yield* Effect.flip(select(mine.principal, other, { ids: ["co_mine"] }))
      assert.strictEqual(cross._tag, "InvalidInput")
      assert.deepStrictEqual((yield* board(mine.principal, sessionId)).selected, ["co_mine"])
    }))
})
