import { Config, Context, Deferred, Duration, Effect, Exit } from "effect"
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import { Server as NetServer, type Socket } from "node:net"
import { setting, WholeNumberFromString } from "../../schema/Setting.ts"

/** How long a shutdown waits for the requests it accepted before it closes the sockets still open. */
export const shutdownGrace = setting("BREIN_SHUTDOWN_GRACE_MS", WholeNumberFromString({ min: 0, unit: "milliseconds" })).pipe(
  Config.map(Duration.millis),
  Config.withDefault(Duration.seconds(10))
)

export interface Drainable {
  /**
   * Stops accepting connections, closes the idle ones and answers every request already accepted,
   * each with `Connection: close`; once `grace` is over, closes the sockets still open.
   */
  readonly drain: (grace: Duration.Duration) => Effect.Effect<void>
}

export class HttpDrain extends Context.Tag("brein/http/HttpDrain")<HttpDrain, Drainable>() {}

/**
 * A kept-alive socket idle at the start of a shutdown is closed only once it has stayed idle this long:
 * a client that was about to send its next request on it (a load generator, a pool) gets it answered
 * with `Connection: close` instead of a reset. Node's own `server.close()` closes idle sockets at once.
 */
const LINGER_MS = 1000
const SWEEP_MS = 100

const closing = (response: ServerResponse) => {
  if (!response.headersSent) response.setHeader("connection", "close")
}

/**
 * Watches every request `server` receives (whichever listener answers it) so that a shutdown can
 * drain it. A socket keeps its request listeners while it drains: a request that reaches a kept-alive
 * socket after the shutdown began is answered too, never left without a reply.
 */
export const drainable = (server: Server) =>
  Effect.sync((): Drainable => {
    // the latest response on each socket that has one in progress
    const latest = new Map<Socket, ServerResponse>()
    // when each open socket last finished a response (or connected)
    const idleSince = new Map<Socket, number>()
    let draining = false

    server.on("connection", (socket: Socket) => {
      idleSince.set(socket, Date.now())
      socket.once("close", () => idleSince.delete(socket))
    })

    /** Closes the sockets that have answered everything and stayed idle for LINGER_MS. */
    const sweep = () => {
      const now = Date.now()
      for (const [socket, since] of idleSince) if (!latest.has(socket) && now - since >= LINGER_MS) socket.destroy()
    }

    const track = (request: IncomingMessage, response: ServerResponse) => {
      const socket = request.socket
      const earlier = latest.get(socket)
      // a request pipelined behind another must be answered: only the last one on the socket closes it
      if (draining && earlier !== undefined && !earlier.headersSent) earlier.removeHeader("connection")
      if (draining) closing(response)
      latest.set(socket, response)
      response.once("close", () => {
        if (latest.get(socket) === response) latest.delete(socket)
        if (idleSince.has(socket)) idleSince.set(socket, Date.now())
      })
    }

    // the first 'request' listener: it sees every request before the one that answers it
    server.prependListener("request", track)

    const drain = Effect.fn("HttpServer.drain")(function* (grace: Duration.Duration) {
      const closed = yield* Deferred.make<void>()
      const inFlight = yield* Effect.sync(() => {
        draining = true
        for (const response of latest.values()) closing(response)
        // net's close: stop listening without http's immediate close of idle sockets (see LINGER_MS)
        NetServer.prototype.close.call(server, () => Deferred.unsafeDone(closed, Exit.void))
        return latest.size
      })
      const sweeper = setInterval(sweep, SWEEP_MS)
      return yield* Effect.gen(function* () {
        yield* Effect.logInfo("shutting down: accepting no new connections, answering the requests in flight").pipe(
          Effect.annotateLogs({ inFlight, graceMs: Duration.toMillis(grace) })
        )
        // a shutdown runs this as a finalizer, uninterruptible: only an interruptible wait can time out
        const [took, inTime] = yield* Deferred.await(closed).pipe(
          Effect.interruptible,
          Effect.timeoutTo({ duration: grace, onSuccess: () => true, onTimeout: () => false }),
          Effect.timed
        )
        if (inTime) {
          return yield* Effect.logInfo("every accepted request was answered").pipe(Effect.annotateLogs({ ms: Duration.toMillis(took) }))
        }
        const left = latest.size
        server.closeAllConnections()
        yield* Effect.logWarning("shutdown grace period over: closed the connections still open").pipe(
          Effect.annotateLogs({ requestsCut: left, graceMs: Duration.toMillis(grace) })
        )
        yield* Deferred.await(closed)
      }).pipe(Effect.ensuring(Effect.sync(() => clearInterval(sweeper))))
    })

    return { drain }
  })
