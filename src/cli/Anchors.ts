import { Args, Command } from "@effect/cli"
import { FileSystem } from "@effect/platform"
import type { PlatformError } from "@effect/platform/Error"
import { Console, Effect, Either, Schema } from "effect"
import { issuesOf, summary } from "../../schema/Issues.ts"
import { AnchorsInput } from "../../schema/luna/Anchors.ts"
import { checkAnchors } from "../../services/luna/anchors/Validate.ts"
import { CommandFailed, exitWith } from "./Failure.ts"

/** Exit code for a file that cannot be checked: missing, unreadable, not JSON, or not the input's shape. */
export const UNUSABLE_INPUT = 2

const unusable = (message: string) => new CommandFailed({ message, exitCode: UNUSABLE_INPUT })

const unreadable = (path: string) => (error: PlatformError) =>
  unusable(
    error._tag === "SystemError" && error.reason === "NotFound"
      ? `cannot read ${path}: no such file`
      : `cannot read ${path}: ${error.message}`
  )

const decode = Schema.decodeUnknownEither(AnchorsInput, { errors: "all" })

const inputOf = (path: string, text: string) => {
  const json = Either.try({ try: (): unknown => JSON.parse(text), catch: (cause) => cause })
  if (Either.isLeft(json)) {
    const reason = json.left instanceof Error ? json.left.message : String(json.left)
    return Either.left(unusable(`${path} is not JSON: ${reason}`))
  }
  return Either.mapLeft(decode(json.right), (error) => {
    const { issues, total } = issuesOf(error, "")
    return unusable(
      `${path} is not an anchoring input ({ "narration": "…", "results": [{ "ref": "…", "payload": … }] }): ${summary(issues, total)}`
    )
  })
}

const check = Command.make("check", {
  file: Args.text({ name: "FILE" }).pipe(
    Args.withDescription(`A JSON file: { "narration": "…", "results": [{ "ref": "…", "payload": {…} }] }`)
  )
}, ({ file }) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const info = yield* fs.stat(file).pipe(Effect.mapError(unreadable(file)))
    if (info.type === "Directory") return yield* unusable(`cannot read ${file}: it is a directory, not a file`)
    const text = yield* fs.readFileString(file).pipe(Effect.mapError(unreadable(file)))
    const report = checkAnchors(yield* inputOf(file, text))
    yield* Console.log(JSON.stringify(report, null, 2))
    return report.ok ? 0 : 1
  }).pipe(Effect.flatMap(exitWith))).pipe(
    Command.withDescription(
      "Check that every figure of a narration is anchored to a tool result its [[ref:ID]] cites; prints the report as JSON; exit 0 anchored, 1 not, 2 unusable input"
    )
  )

export const anchors = Command.make("anchors").pipe(
  Command.withDescription("Luna's anchoring validator"),
  Command.withSubcommands([check])
)
