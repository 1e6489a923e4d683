import { Command, HelpDoc, Options, ValidationError } from "@effect/cli"
import { Console, Effect } from "effect"
import { SeedLive } from "../../layers/Directory.ts"
import { DirectorySeed } from "../../services/catalog/empresas/DirectorySeed.ts"
import { DEFAULT_COMPANIES, DEFAULT_SEED, MAX_COMPANIES } from "../../services/catalog/empresas/Generator.ts"
import { database, databaseSettings } from "./Settings.ts"

const companies = Options.integer("companies").pipe(
  Options.withDescription(
    `Companies to generate, 1 to ${MAX_COMPANIES.toLocaleString("en-US")} (default ${
      DEFAULT_COMPANIES.toLocaleString("en-US")
    }); each has 1–6 people`
  ),
  Options.withDefault(DEFAULT_COMPANIES),
  Options.mapEffect((n) =>
    n >= 1 && n <= MAX_COMPANIES
      ? Effect.succeed(n)
      : Effect.fail(ValidationError.invalidValue(HelpDoc.p(`--companies must be from 1 to ${MAX_COMPANIES}, not ${n}`)))
  )
)

const seed = Options.text("seed").pipe(
  Options.withDescription(`The generator's seed: the same seed gives the same directory, ids included (default "${DEFAULT_SEED}")`),
  Options.withDefault(DEFAULT_SEED)
)

export const seedCommand = Command.make("seed", { ...database, companies, seed }, (options) =>
  Effect.gen(function* () {
    yield* Console.error(
      `loading the directory: ${options.companies.toLocaleString("en-US")} companies, seed "${options.seed}" (one transaction)…`
    )
    const seeded = yield* (yield* DirectorySeed).load({ seed: options.seed, companies: options.companies })
    yield* Console.log(
      `loaded ${seeded.companies.toLocaleString("en-US")} companies and ${
        seeded.people.toLocaleString("en-US")
      } people (seed "${seeded.seed}") in ${(seeded.millis / 1000).toFixed(1)} s`
    )
  }).pipe(Effect.provide(SeedLive), databaseSettings(options))).pipe(
    Command.withDescription("Replace the directory of companies and people with a generated one (deterministic from --seed)")
  )
