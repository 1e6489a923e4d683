import { Effect, Either, Option, Schema } from "effect"
import { readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const PackageJson = Schema.parseJson(Schema.Struct({ name: Schema.String, version: Schema.String }))
const decodePackage = Schema.decodeUnknownOption(PackageJson)

/** The version in brein's package.json, found upward from this file (from the sources or a compiled copy alike). */
export const packageVersion = Effect.sync(() => {
  for (let dir = dirname(fileURLToPath(import.meta.url));; dir = dirname(dir)) {
    const text = Either.getOrUndefined(Either.try(() => readFileSync(join(dir, "package.json"), "utf8")))
    const found = text === undefined ? Option.none() : Option.filter(decodePackage(text), (pkg) => pkg.name === "brein")
    if (Option.isSome(found)) return found.value.version
    if (dirname(dir) === dir) return "0.0.0"
  }
})
