import { Data, Effect } from "effect"
import { createServer } from "node:net"

/** The port the service was asked to serve on cannot be listened on: in use, or not this user's to take. */
export class PortUnavailable extends Data.TaggedError("PortUnavailable")<{
  readonly port: number
  /** the system's code: EADDRINUSE, EACCES… */
  readonly code: string
  readonly message: string
}> {}

const codeOf = (error: unknown) =>
  typeof error === "object" && error !== null && "code" in error && typeof error.code === "string" ? error.code : "unknown"

const reasonOf = (error: unknown) => error instanceof Error ? error.message : String(error)

/** Why listening on `port` failed, said for the person who chose the port. */
export const portUnavailable = (port: number, error: unknown) => {
  const code = codeOf(error)
  const message = code === "EADDRINUSE"
    ? `port ${port} is in use (another brein, or another program, listens on it): stop that one, or serve on another port with --port or PORT`
    : code === "EACCES"
    ? `port ${port} may not be listened on by this user (ports below 1024 need privileges): serve on another port with --port or PORT`
    : `port ${port} cannot be listened on (${reasonOf(error)}): serve on another port with --port or PORT`
  return new PortUnavailable({ port, code, message })
}

/**
 * Listens on `port` as the server will (every address) and closes at once, so that a port in use stops
 * `serve` before its database is made or loaded. Another program may still take the port in between:
 * the server's own listen then fails with the same error.
 */
export const portFree = Effect.fn("PortUnavailable.portFree")(function* (port: number) {
  yield* Effect.async<void, PortUnavailable>((resume) => {
    const probe = createServer()
    probe.once("error", (error) => resume(Effect.fail(portUnavailable(port, error))))
    probe.listen({ port }, () => probe.close(() => resume(Effect.void)))
  })
})
