import { FileSystem } from "@effect/platform"
import { Effect, Schema } from "effect"
import { fileURLToPath } from "node:url"

const Manifest = Schema.parseJson(Schema.Struct({ name: Schema.Literal("brein"), version: Schema.String }))

/** package.json's version, found from the running file whether it runs from src/ or from compiled output. */
export const packageVersion = Effect.gen(function* () {
  const fs = yield* FileSystem.FileSystem
  const candidates = ["../package.json", "../../package.json", "../../../package.json"].map((relative) =>
    fs.readFileString(fileURLToPath(new URL(relative, import.meta.url))).pipe(
      Effect.flatMap(Schema.decodeUnknown(Manifest)),
      Effect.map((manifest) => manifest.version)
    )
  )
  return yield* Effect.firstSuccessOf(candidates).pipe(Effect.orElseSucceed(() => "unknown"))
})
