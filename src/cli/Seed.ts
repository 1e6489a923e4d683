import { Command, HelpDoc, Options, ValidationError } from "@effect/cli"
import { Effect } from "effect"
import { DEFAULT_AWARDS, DEFAULT_COMPANIES, DEFAULT_SEED, MAX_AWARDS, MAX_COMPANIES } from "../../schema/catalog/SeedSizes.ts"
import { loaded } from "./Loaded.ts"
import { database, databaseSettings } from "./Settings.ts"

const between = (flag: string, max: number) => (n: number) =>
  n >= 1 && n <= max
    ? Effect.succeed(n)
    : Effect.fail(ValidationError.invalidValue(HelpDoc.p(`--${flag} must be from 1 to ${max}, not ${n}`)))

const companies = Options.integer("companies").pipe(
  Options.withPseudoName("N"),
  Options.withDescription(
    `Companies to generate, 1 to ${MAX_COMPANIES.toLocaleString("en-US")} (default ${
      DEFAULT_COMPANIES.toLocaleString("en-US")
    }); each has 1–6 people`
  ),
  Options.withDefault(DEFAULT_COMPANIES),
  Options.mapEffect(between("companies", MAX_COMPANIES))
)

const awards = Options.integer("awards").pipe(
  Options.withPseudoName("N"),
  Options.withDescription(
    `Mercado contracts (awards) to generate, 1 to ${MAX_AWARDS.toLocaleString("en-US")} (default ${
      DEFAULT_AWARDS.toLocaleString("en-US")
    }); suppliers, buying units and procedures scale with it`
  ),
  Options.withDefault(DEFAULT_AWARDS),
  Options.mapEffect(between("awards", MAX_AWARDS))
)

const only = Options.choice("only", ["directory", "mercado"]).pipe(
  Options.withDescription("Load only the directory of companies and people, or only the Mercado data set (default: both)"),
  Options.optional
)

// Refused here, before anything is replaced: Mercado's loader refuses a blank seed, once the directory was already loaded.
const seed = Options.text("seed").pipe(
  Options.withPseudoName("SEED"),
  Options.withDescription(`The generators' seed: the same seed gives the same data, ids included (default "${DEFAULT_SEED}")`),
  Options.withDefault(DEFAULT_SEED),
  Options.mapEffect((text) =>
    text.trim() === ""
      ? Effect.fail(ValidationError.invalidValue(HelpDoc.p("--seed must not be blank: the same seed gives the same data")))
      : Effect.succeed(text)
  )
)

export const seedCommand = Command.make(
  "seed",
  { ...database, companies, awards, only, seed },
  (options) => loaded(() => import("./SeedRun.ts"), (run) => run.seed(options)).pipe(databaseSettings(options))
).pipe(
  Command.withDescription(
    "Replace the directory of companies and people and the Mercado procurement data set with generated ones (deterministic from --seed)"
  )
)
