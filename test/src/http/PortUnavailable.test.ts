import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer } from "effect"
import { createServer } from "node:net"
import { ServicesLive } from "../../../layers/App.ts"
import { portFree } from "../../../src/http/PortUnavailable.ts"
import { listen, serveOn } from "../../../src/http/Server.ts"
import { heldPort } from "../../support/HeldPort.ts"
import { TestDatabase } from "../../support/TestDatabase.ts"

const failureOf = <A, E>(exit: Exit.Exit<A, E>) => Exit.isFailure(exit) ? exit.cause.toJSON() : "succeeded"

/** Whether this process can listen on `port` now (and lets it go at once). */
const canListen = (port: number) =>
  Effect.async<boolean>((resume) => {
    const probe = createServer()
    probe.once("error", () => resume(Effect.succeed(false)))
    probe.listen({ port }, () => probe.close(() => resume(Effect.succeed(true))))
  })

describe("a port the service cannot listen on", () => {
  it.scopedLive("is told before serving, by its number, and a free port is left free after the look", () =>
    Effect.gen(function* () {
      const taken = yield* heldPort
      const refused = yield* Effect.flip(portFree(taken))
      assert.strictEqual(refused._tag, "PortUnavailable")
      assert.strictEqual(refused.code, "EADDRINUSE")
      assert.strictEqual(
        refused.message,
        `port ${taken} is in use (another brein, or another program, listens on it): stop that one, or serve on another port with --port or PORT`
      )

      const free = yield* Effect.scoped(heldPort)
      yield* portFree(free)
      assert.isTrue(yield* canListen(free), "the look closed what it opened")
    }))

  it.scopedLive("taken between the look and the listen, fails the server's start with the same refusal", () =>
    Effect.gen(function* () {
      const taken = yield* heldPort
      const started = yield* Effect.exit(
        Layer.build(serveOn(listen(taken)).pipe(Layer.provideMerge(ServicesLive), Layer.provideMerge(TestDatabase)))
      )
      assert.isTrue(Exit.isFailure(started), JSON.stringify(failureOf(started)))
      const refused = yield* Effect.flip(started)
      assert.deepInclude(refused, { _tag: "PortUnavailable", port: taken, code: "EADDRINUSE" })
    }), { timeout: 60_000 })
})
