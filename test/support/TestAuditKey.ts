import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { Effect, Layer, Option } from "effect"
import { auditKeyIn } from "../../layers/AuditKey.ts"

/** The audit checkpoint key and witness in a data folder of its own, removed with the scope. */
export const auditKeyInTemp = Layer.unwrapScoped(
  Effect.map(
    Effect.flatMap(FileSystem.FileSystem, (fs) => fs.makeTempDirectoryScoped({ prefix: "brein-audit-" })),
    (dir) => auditKeyIn(Option.none(), dir)
  )
).pipe(Layer.provide(NodeContext.layer), Layer.orDie)
