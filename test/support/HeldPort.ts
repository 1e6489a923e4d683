import { Effect } from "effect"
import { createServer } from "node:net"

/** A port another program listens on (every address, as the service would) for the scope's life. */
export const heldPort = Effect.acquireRelease(
  Effect.async<{ readonly port: number; readonly close: () => void }>((resume) => {
    const holder = createServer()
    holder.listen({ port: 0 }, () => {
      const address = holder.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      resume(Effect.succeed({ port, close: () => void holder.close() }))
    })
  }),
  (held) => Effect.sync(held.close)
).pipe(Effect.map((held) => held.port))
