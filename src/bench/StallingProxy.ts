import { Effect } from "effect"
import { createConnection, createServer, type Socket } from "node:net"

/**
 * A TCP proxy in front of a database, as a network path that can stop answering: while it forwards, a
 * connection reaches the database; while it stalls, a new connection is accepted and then never answered
 * (its bytes go nowhere), as a database that hangs or a path that drops packets. Connections made before
 * a stall keep forwarding; while it freezes, they stop too (their bytes are held, each way), as a database
 * whose process stops or a network path that is cut without a reset. Closed with its scope.
 */
export interface StallingProxy {
  /** The database's URL with the proxy's host and port. */
  readonly url: string
  readonly stall: Effect.Effect<void>
  /** Stalls, and holds the bytes of the connections made before. */
  readonly freeze: Effect.Effect<void>
  /** Forwards again: the connections accepted while stalled are closed, the ones frozen carry on. */
  readonly forward: Effect.Effect<void>
  /** Connections accepted and left unanswered since the proxy started. */
  readonly stalled: Effect.Effect<number>
}

/** A proxy to the database at `database` (a postgres:// URL), forwarding until told to stall. */
export const stallingProxy = (database: string) =>
  Effect.gen(function* () {
    const target = new URL(database)
    const sockets = new Set<Socket>()
    const held = new Set<Socket>()
    /** Each forwarded connection, client side to database side. */
    const paths = new Map<Socket, Socket>()
    let stalling = false
    let frozen = false
    let stalled = 0
    const server = createServer((client) => {
      sockets.add(client)
      client.on("close", () => {
        sockets.delete(client)
        held.delete(client)
        paths.delete(client)
      })
      client.on("error", () => client.destroy())
      if (stalling) {
        stalled++
        held.add(client)
        client.resume()
        return
      }
      const upstream = createConnection({ host: target.hostname, port: Number(target.port || 5432) })
      sockets.add(upstream)
      upstream.on("close", () => {
        sockets.delete(upstream)
        client.destroy()
      })
      upstream.on("error", () => upstream.destroy())
      client.on("close", () => upstream.destroy())
      paths.set(client, upstream)
      client.pipe(upstream)
      upstream.pipe(client)
    })
    const port = yield* Effect.acquireRelease(
      Effect.async<number, Error>((resume) => {
        server.once("error", (error) => resume(Effect.fail(error)))
        server.listen(0, "127.0.0.1", () => {
          const address = server.address()
          resume(typeof address === "object" && address !== null ? Effect.succeed(address.port) : Effect.dieMessage("no port"))
        })
      }),
      () =>
        Effect.async<void>((resume) => {
          for (const socket of sockets) socket.destroy()
          server.close(() => resume(Effect.void))
        })
    )
    const url = new URL(target)
    url.hostname = "127.0.0.1"
    url.port = String(port)
    const proxy: StallingProxy = {
      url: url.toString(),
      stall: Effect.sync(() => {
        stalling = true
      }),
      freeze: Effect.sync(() => {
        stalling = true
        frozen = true
        for (const [client, upstream] of paths) {
          client.unpipe(upstream)
          upstream.unpipe(client)
          client.pause()
          upstream.pause()
        }
      }),
      forward: Effect.sync(() => {
        stalling = false
        for (const socket of held) socket.destroy()
        // Every path forwarded while frozen was made before the freeze: a connection accepted since is held.
        if (frozen) {
          for (const [client, upstream] of paths) {
            client.pipe(upstream)
            upstream.pipe(client)
          }
        }
        frozen = false
      }),
      stalled: Effect.sync(() => stalled)
    }
    return proxy
  })
