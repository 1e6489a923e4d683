import { Clock, Effect, Ref } from "effect"
import * as Http from "node:http"
import * as Net from "node:net"
import { type Attack, range, report } from "./Attack.ts"
import { errorCode, seconds, tally } from "./Http.ts"
import { stage } from "./Stage.ts"

const CONNECTIONS = 16

interface Outcome {
  readonly sent: boolean
  readonly answer: number | string
}

/** One POST on a keep-alive agent: its status, or how it failed (refused = never accepted, so never sent). */
const post = (agent: Http.Agent, port: number, key: string) =>
  Effect.async<Outcome>((resume) => {
    const req = Http.request(
      {
        host: "127.0.0.1",
        port,
        method: "POST",
        path: "/api/v1/tools/core.timestamp.now/execute",
        agent,
        headers: { "content-type": "application/json", authorization: `Bearer ${key}` }
      },
      (res) => {
        res.resume()
        res.on("end", () => resume(Effect.succeed({ sent: true, answer: res.statusCode ?? 0 })))
        res.on("error", (e) => resume(Effect.succeed({ sent: true, answer: errorCode(e) })))
      }
    )
    // a request nobody answers must end the worker, not hang the run
    req.setTimeout(30_000, () => req.destroy(Object.assign(new Error("no answer in 30 s"), { code: "TIMEOUT" })))
    req.on("error", (e) => {
      const code = errorCode(e)
      resume(Effect.succeed({ sent: code !== "ECONNREFUSED", answer: code }))
    })
    req.end("{\"input\":{}}")
  })

/** A client that sends half a request and then nothing: it must not hold the shutdown for long. */
const slowClient = (port: number) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const socket = Net.connect(port, "127.0.0.1")
      socket.on("error", () => undefined)
      socket.write(
        "POST /api/v1/tools/core.timestamp.now/execute HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"in"
      )
      return socket
    }),
    (socket) => Effect.sync(() => socket.destroy())
  )

/** Keep-alive load, then SIGTERM: requests sent vs answered, exit code and how long the exit took. */
export const sigterm: Attack = {
  name: "sigterm",
  run: (settings) =>
    Effect.gen(function* () {
      const { service, keys } = yield* stage(settings.adminUrl, "sigterm")
      const agent = new Http.Agent({ keepAlive: true, maxSockets: CONNECTIONS })
      yield* Effect.addFinalizer(() => Effect.sync(() => agent.destroy()))
      yield* slowClient(service.port)
      const outcomes: Array<Outcome> = []
      const refused = yield* Ref.make(false)
      const worker = Effect.gen(function* () {
        while (!(yield* Ref.get(refused))) {
          const outcome = yield* post(agent, service.port, keys.paid)
          outcomes.push(outcome)
          if (outcome.answer === "ECONNREFUSED") yield* Ref.set(refused, true)
        }
      })
      const load = yield* Effect.fork(Effect.forEach(range(CONNECTIONS), () => worker, { concurrency: "unbounded", discard: true }))
      yield* Effect.sleep(settings.quick ? "2 seconds" : "5 seconds")
      const signalled = yield* Clock.currentTimeMillis
      yield* service.process.kill("SIGTERM")
      const exitCode = yield* service.process.exitCode.pipe(Effect.timeout("60 seconds"), Effect.option)
      const tookMs = (yield* Clock.currentTimeMillis) - signalled
      yield* Ref.set(refused, true)
      yield* load.await
      const sent = outcomes.filter((o) => o.sent)
      const answered = sent.filter((o) => typeof o.answer === "number")
      const lost = sent.filter((o) => typeof o.answer !== "number")
      yield* report(
        `SIGTERM under keep-alive load (${CONNECTIONS} connections + 1 slow client)`,
        sent.length,
        `${answered.length.toLocaleString("en")} answered (${tally(answered.map((o) => o.answer))}), ${lost.length} unanswered (${
          tally(lost.map((o) => o.answer))
        }); exit ${exitCode._tag === "Some" ? `code ${exitCode.value}` : "not within 60 s"} ${seconds(tookMs)} after SIGTERM`
      )
    })
}
