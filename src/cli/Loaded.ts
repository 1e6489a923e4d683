import { Effect } from "effect"

/**
 * A command's body, from a module of its own imported when the command runs. The bundle puts what only
 * that module reaches in chunks of their own (scripts/bundle.mjs): a command that serves nothing (keys,
 * workspaces, audit, --version) does not load or compile the server, the MCP SDK or the catalog, which
 * was most of its start-up time. A module that cannot be loaded is a broken install, a defect.
 */
export const loaded = <M, A, E, R>(load: () => Promise<M>, run: (module: M) => Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(Effect.promise(load), run)
