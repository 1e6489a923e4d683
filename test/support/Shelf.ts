import { FileSystem } from "@effect/platform"
import { Effect } from "effect"
import * as Path from "node:path"
import { digest, shelves } from "../../layers/PostgresPlacement.ts"

/**
 * Removes, when the scope closes, what the shelves keep (as root) for the embedded database asked for
 * at `asked`: its databases, and the copy of `binaries` if given. Added before any server starts, it
 * runs after every server the scope started has stopped. As another user the shelves hold nothing of it.
 */
export const shelvedRemovedAtEnd = (asked: string, binaries?: string) =>
  Effect.flatMap(FileSystem.FileSystem, (fs) => {
    const ours = (entry: string) =>
      entry.startsWith(`data-${digest(asked)}`) || (binaries !== undefined && entry === `postgres-${digest(binaries)}`)
    const remove = Effect.forEach(shelves, (shelf) =>
      fs.readDirectory(shelf).pipe(
        Effect.flatMap(Effect.forEach((entry) => ours(entry) ? fs.remove(Path.join(shelf, entry), { recursive: true }) : Effect.void)),
        Effect.ignore
      ))
    return Effect.addFinalizer(() => remove)
  })
