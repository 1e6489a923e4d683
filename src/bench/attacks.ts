import { FetchHttpClient } from "@effect/platform"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Cause, Config, Console, Data, Duration, Effect, Layer, Option } from "effect"
import { LoggingLive } from "../../layers/Logging.ts"
import type { Attack, AttackSettings } from "./attacks/Attack.ts"
import { badKey } from "./attacks/BadKey.ts"
import { deep } from "./attacks/Deep.ts"
import { deletedConnection } from "./attacks/DeletedConnection.ts"
import { hugeName } from "./attacks/HugeName.ts"
import { nul } from "./attacks/Nul.ts"
import { outage } from "./attacks/Outage.ts"
import { rateLimit } from "./attacks/RateLimit.ts"
import { sigterm } from "./attacks/Sigterm.ts"
import { soak } from "./attacks/Soak.ts"
import { freeze, stall } from "./attacks/Stall.ts"
import { tamper } from "./attacks/Tamper.ts"
import { twoWriters } from "./attacks/TwoWriters.ts"
import { wideBody } from "./attacks/WideBody.ts"
import { sharedDatabase } from "./SharedDatabase.ts"

class BadArguments extends Data.TaggedError("BadArguments")<{ readonly message: string }> {}

const ATTACKS: ReadonlyArray<Attack> = [
  nul,
  hugeName,
  deep,
  badKey,
  wideBody,
  rateLimit,
  tamper,
  twoWriters,
  deletedConnection,
  outage,
  stall,
  freeze,
  sigterm,
  soak
]

const USAGE = `usage: npm run bench:attacks -- [--only ${
  ATTACKS.map((a) => a.name).join(",")
}] [--quick] [--duration SECONDS] [--rate REQ_PER_S]`

const flags = (argv: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const value = (name: string) => {
      const at = argv.indexOf(name)
      return at === -1 ? Option.none<string>() : Option.fromNullable(argv[at + 1])
    }
    const known = new Set(["--only", "--quick", "--duration", "--rate"])
    const unknown = argv.filter((arg, i) => arg.startsWith("--") && !known.has(arg) && argv[i - 1] !== "--only")
    if (unknown.length > 0) return yield* new BadArguments({ message: `unknown ${unknown.join(" ")}\n${USAGE}` })
    const only = Option.map(value("--only"), (list) => list.split(",").map((name) => name.trim()).filter((name) => name !== ""))
    const chosen = Option.match(only, { onNone: () => ATTACKS, onSome: (names) => ATTACKS.filter((a) => names.includes(a.name)) })
    const missing = Option.getOrElse(only, () => []).filter((name) => !ATTACKS.some((a) => a.name === name))
    if (missing.length > 0) return yield* new BadArguments({ message: `no attack named ${missing.join(", ")}\n${USAGE}` })
    const quick = argv.includes("--quick")
    const number = (name: string, fallback: number) =>
      Option.match(value(name), {
        onNone: () => Effect.succeed(fallback),
        onSome: (
          text
        ) => (Number(text) > 0 ? Effect.succeed(Number(text)) : new BadArguments({ message: `${name} wants a positive number\n${USAGE}` }))
      })
    const duration = yield* number("--duration", quick ? 20 : 180)
    const rate = yield* number("--rate", 500)
    return { chosen, quick, duration: Duration.seconds(duration), rate }
  })

/** One attack in its own scope: whatever it started is stopped and dropped before the next begins, even when it fails. */
const runOne = (attack: Attack, settings: AttackSettings) =>
  Effect.scoped(attack.run(settings)).pipe(
    Effect.catchAllCause((cause) =>
      Cause.isInterruptedOnly(cause)
        ? Effect.interrupt
        : Console.log(`${attack.name}: could not run: ${Cause.pretty(cause).split("\n").slice(0, 3).join(" ")}`)
    )
  )

const program = Effect.gen(function* () {
  const { chosen, quick, duration, rate } = yield* flags(process.argv.slice(2))
  const database = yield* sharedDatabase(yield* Config.option(Config.redacted("DATABASE_URL")))
  yield* Console.log(
    `bench:attacks  ${chosen.map((a) => a.name).join(", ")}${
      quick ? " (quick)" : ""
    }; built CLI dist/bin/brein.js over ${database.label}, a fresh database per attack\n`
  )
  const settings: AttackSettings = { adminUrl: database.url, quick, duration, rate }
  yield* Effect.forEach(chosen, (attack) => runOne(attack, settings), { discard: true })
}).pipe(
  Effect.scoped,
  Effect.catchTag("BadArguments", (e) =>
    Effect.zipRight(
      Console.error(e.message),
      Effect.sync(() => {
        process.exitCode = 2
      })
    ))
)

program.pipe(
  Effect.provide(Layer.mergeAll(NodeContext.layer, FetchHttpClient.layer, LoggingLive)),
  NodeRuntime.runMain({ disablePrettyLogger: true })
)
