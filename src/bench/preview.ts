import { FileSystem } from "@effect/platform"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { Config, ConfigProvider, Console, Effect, Layer, Option, Redacted, Schema } from "effect"
import { ServicesLive } from "../../layers/App.ts"
import { databaseFromUrl } from "../../layers/Database.ts"
import { LoggingLive } from "../../layers/Logging.ts"
import { SequencePreviewOutput } from "../../schema/catalog/SequenceTools.ts"
import { DirectorySeed } from "../../services/catalog/empresas/DirectorySeed.ts"
import { Owned } from "../../services/catalog/empresas/Owned.ts"
import { Mailboxes } from "../../services/catalog/sequences/Mailboxes.ts"
import { Executor } from "../../services/pipeline/Executor.ts"
import { Workspaces } from "../../services/workspace/Workspaces.ts"
import { settingsFirst, wholeNumber } from "./Settings.ts"
import { sharedDatabase } from "./SharedDatabase.ts"

/** The goal: one preview of 5 steps × 500 recipients in under this many milliseconds. */
const GOAL_MS = 1_000
const STEPS = 5
const RECIPIENTS = 500
const RUNS = 10

const settings = Config.all({
  runs: wholeNumber("BENCH_RUNS", { min: 1, max: 1_000, unit: "runs" }, RUNS),
  databaseUrl: Config.option(Config.redacted("DATABASE_URL"))
})

const stepOf = (i: number) => ({
  id: `s${i + 1}`,
  delay: i === 0 ? 0 : 2,
  delay_unit: "days",
  subject: i === 0 ? "{Hola|Buen día|Saludos} {{first_name}}" : `Re: {una idea|otra idea} para {{company}} (${i + 1})`,
  body: "{Hola|Estimado/a} {{first_name|equipo}},\n\nVi que {{company}} está en {{region}} y que como {{title}} " +
    "{te toca|lideras} esto. {¿Conversamos 15 minutos?|¿Te parece una llamada corta?} https://acme.example/agenda\n\n{{unsubscribe}}",
  ...(i % 2 === 1
    ? {
      variants: [{
        id: "b",
        subject: "Pregunta rápida, {{first_name}}",
        body: "{{first_name}}, ¿{{company}} ya resolvió esto?\n\n{{unsubscribe}}"
      }]
    }
    : {})
})

const percentile = (sorted: ReadonlyArray<number>, p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0

const program = Effect.gen(function* () {
  const { runs } = yield* settings
  const seed = yield* DirectorySeed
  yield* seed.load({ seed: "bench:preview", companies: 400 })
  const workspaces = yield* Workspaces
  yield* workspaces.create("bench-preview", "free").pipe(Effect.orDie)
  const principal = yield* workspaces.principalFor("bench-preview").pipe(Effect.orDie)
  const mailbox = Option.getOrThrow(
    yield* (yield* Mailboxes).add(principal.workspaceId, {
      email: "ventas@acme.example",
      displayName: "Ventas Acme",
      dailyCap: 700,
      minSpacingSeconds: 30,
      spf: true,
      dkim: true,
      dmarc: true
    })
  )
  const sql = yield* SqlClient.SqlClient
  const people = yield* sql<{ id: string }>`SELECT id FROM people WHERE email IS NOT NULL ORDER BY id LIMIT ${RECIPIENTS}`
  yield* (yield* Owned).reveal(principal, people.map((p) => p.id), "req_bench")
  const executor = yield* Executor
  const call = (toolId: string, input: unknown) => executor.call(toolId, input, { surface: "library", principal })
  const created = yield* call("sequence_create", {
    name: "bench",
    mailbox_id: mailbox.id,
    steps: Array.from({ length: STEPS }, (_, i) => stepOf(i)),
    settings: {
      sender_identity: "Acme SpA",
      physical_address: "Av. Apoquindo 3000, Las Condes, Santiago",
      privacy_notice_url: "https://acme.example/privacidad",
      daily_cap: 300,
      spacing_seconds: 60,
      window: { start_hour: 9, end_hour: 18, timezone: "America/Santiago" }
    }
  })
  const sequenceId = Schema.decodeUnknownSync(Schema.Struct({ sequence_id: Schema.String }))(created.data).sequence_id
  yield* call("sequence_recipients_set", {
    sequence_id: sequenceId,
    person_ids: people.map((p) => p.id),
    lawful_basis: "legitimate_interest"
  })

  yield* Console.log(`bench:preview  sequence_preview of ${STEPS} steps × ${people.length} recipients through the executor, ${runs} runs`)
  const samples: Array<number> = []
  let messages = 0
  for (let run = 0; run < runs + 1; run++) {
    const start = performance.now()
    const response = yield* call("sequence_preview", { sequence_id: sequenceId, limit: RECIPIENTS })
    const ms = performance.now() - start
    messages = Schema.decodeUnknownSync(SequencePreviewOutput)(response.data).messages.length
    if (run > 0) samples.push(ms) // the first run warms the JIT and the pool
  }
  const sorted = [...samples].sort((a, b) => a - b)
  const p50 = percentile(sorted, 0.5)
  const worst = sorted[sorted.length - 1] ?? 0
  yield* Console.log([
    `  messages per preview ${messages}`,
    `  p50 ${p50.toFixed(1)} ms   max ${worst.toFixed(1)} ms   (goal < ${GOAL_MS} ms: ${worst < GOAL_MS ? "met" : "MISSED"})`,
    `  rate ${Math.round(messages / (p50 / 1000)).toLocaleString("en-US")} messages/s at p50`
  ].join("\n"))
})

const Database = Layer.unwrapScoped(
  Effect.gen(function* () {
    const { databaseUrl } = yield* settings
    const database = yield* sharedDatabase(databaseUrl)
    yield* Console.log(`on ${database.label}`)
    const dataDir = yield* (yield* FileSystem.FileSystem).makeTempDirectoryScoped({ prefix: "brein-bench-preview-" })
    return ServicesLive.pipe(
      Layer.provideMerge(databaseFromUrl(Redacted.make(database.url))),
      Layer.provide(Layer.setConfigProvider(
        ConfigProvider.fromMap(new Map([["BREIN_DATA_DIR", dataDir]])).pipe(ConfigProvider.orElse(() => ConfigProvider.fromEnv()))
      ))
    )
  })
)

program.pipe(
  Effect.provide(Database),
  Effect.provide(Layer.mergeAll(NodeContext.layer, LoggingLive)),
  settingsFirst(settings),
  NodeRuntime.runMain({ disablePrettyLogger: true })
)
