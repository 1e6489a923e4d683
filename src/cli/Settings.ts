import { Args, HelpDoc, Options, ValidationError } from "@effect/cli"
import { ConfigProvider, Effect, Option, Schema } from "effect"
import { OperatorLogging } from "../../layers/Logging.ts"
import { namesAFolder, noDataDir } from "../../schema/DataDir.ts"
import { issuesOf, summary } from "../../schema/Issues.ts"
import { notAPort, PortFromString } from "../../schema/Port.ts"
import { Plan } from "../../schema/tools/Definition.ts"
import { decodeWorkspaceName } from "../../schema/WorkspaceName.ts"

export const dataDir = Options.text("data-dir").pipe(
  Options.withPseudoName("DIR"),
  Options.withDescription("Folder for the embedded PostgreSQL and the credentials key (env BREIN_DATA_DIR, default .brein)"),
  Options.mapEffect((value) =>
    namesAFolder(value) ? Effect.succeed(value) : Effect.fail(ValidationError.invalidValue(HelpDoc.p(noDataDir("--data-dir"))))
  ),
  Options.optional
)

// text, then decoded: an integer option reads 0x10, 1e3 and 4103.0 as numbers
export const port = Options.text("port").pipe(
  Options.withPseudoName("PORT"),
  Options.withDescription("HTTP port, 1 to 65535 (env PORT, default 8787)"),
  Options.mapEffect((value) =>
    Schema.decodeUnknown(PortFromString)(value.trim()).pipe(
      Effect.mapError(() => ValidationError.invalidValue(HelpDoc.p(notAPort("--port", value))))
    )
  ),
  Options.optional
)

/**
 * A flag's value decoded by `schema`: one that does not decode is a wrong command line (exit 2), said
 * with the schema's own issues, before any database is opened.
 */
export const decodedFlag = <A, I>(flag: string, schema: Schema.Schema<A, I>) => (value: I) =>
  Schema.decodeUnknown(schema)(value).pipe(
    Effect.mapError((error) => ValidationError.invalidValue(HelpDoc.p(summary(issuesOf(error, flag).issues))))
  )

/** A workspace name from the command line, refused before any database is opened when it is blank. */
const workspaceNameOf = (flag: string) => (value: string) =>
  decodeWorkspaceName(value).pipe(Effect.mapError((error) => HelpDoc.p(`${flag}: ${error.message}`)))

export const workspaceOption = (description: string) =>
  Options.text("workspace").pipe(
    Options.withPseudoName("NAME"),
    Options.withDescription(description),
    Options.mapEffect((value) => workspaceNameOf("--workspace")(value).pipe(Effect.mapError(ValidationError.invalidValue)))
  )

/**
 * A new workspace's name. One that begins with "-" is an option misplaced (`workspaces create --plan`, whose
 * value is missing, made a workspace named "--plan"), and would read as one in every later `--workspace`.
 */
export const workspaceArg = Args.text({ name: "NAME" }).pipe(
  Args.withDescription("The workspace's name"),
  Args.mapEffect((value) =>
    value.trimStart().startsWith("-")
      ? Effect.fail(HelpDoc.p(
        `NAME must not begin with "-", which reads as an option (got ${
          JSON.stringify(value.slice(0, 40))
        }): brein workspaces create NAME [--plan free|paid]`
      ))
      : workspaceNameOf("NAME")(value)
  )
)

export const workspaceFilter = workspaceOption("Only this workspace").pipe(Options.optional)

export const plan = Options.text("plan").pipe(
  Options.withPseudoName(Plan.literals.join(" | ")),
  Options.withDescription("The workspace's plan: free or paid"),
  Options.mapEffect((value) =>
    Schema.decodeUnknown(Plan)(value).pipe(
      Effect.mapError(() => ValidationError.invalidValue(HelpDoc.p(`--plan must be free or paid, not "${value}"`)))
    )
  )
)

/**
 * Runs `effect` with flags layered over the configuration it already has (the environment): a flag
 * wins, and layers keep reading every setting through Config.
 */
export const withSettings =
  (settings: Readonly<Record<string, Option.Option<string | number>>>) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    Effect.configProviderWith((current) => {
      const given = Object.entries(settings).flatMap(([key, value]) => Option.isSome(value) ? [[key, String(value.value)] as const] : [])
      if (given.length === 0) return effect
      return Effect.withConfigProvider(effect, ConfigProvider.orElse(ConfigProvider.fromMap(new Map(given)), () => current))
    })

/** Settings every command that opens the database accepts. */
export const database = { dataDir }
export const databaseSettings = (options: { readonly dataDir: Option.Option<string> }) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  effect.pipe(Effect.provide(OperatorLogging), withSettings({ BREIN_DATA_DIR: options.dataDir }))
