import { Reactivity } from "@effect/experimental"
import { PgClient } from "@effect/sql-pg"
import { ConfigProvider, Context, Effect, Layer, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import { Credits } from "../services/budget/Credits.ts"
import { CrmDirectory } from "../services/catalog/crm/CrmDirectory.ts"
import { CrmClient } from "../services/crm/CrmClient.ts"
import { ModelGateway } from "../services/luna/ModelGateway.ts"
import { recordingModel } from "../services/luna/RecordingModel.ts"
import { ReplayModel } from "../services/luna/ReplayModel.ts"
import { ScriptedModel } from "../services/luna/ScriptedModel.ts"
import { servicesOver } from "./App.ts"
import { ConnectedLive } from "./Connected.ts"
import { crmSimulated } from "./Crm.ts"
import { databaseFromUrl, DatabaseUrl } from "./Database.ts"
import { IndicadoresLive } from "./Indicadores.ts"
import { ModelGatewayLive } from "./LunaModel.ts"
import { sources } from "./Registry.ts"

/** A database of the run's own on the configured server (DATABASE_URL, or the embedded one), dropped when the scope closes. */
const throwawayDatabase = Effect.fn("Bench.database")(function* (server: Redacted.Redacted<string>) {
  const admin = yield* PgClient.make({ url: server, maxConnections: 1 }).pipe(Effect.provide(Reactivity.layer))
  const name = `brein_bench_${randomBytes(6).toString("hex")}`
  yield* Effect.acquireRelease(
    admin.unsafe(`CREATE DATABASE ${name}`),
    () => Effect.orDie(admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))
  )
  const target = new URL(Redacted.value(server))
  target.pathname = `/${name}`
  return Redacted.make(target.toString())
})

/** A migrated throwaway database on the configured server. */
export const BenchDatabaseLive = Layer.unwrapScoped(Effect.map(Effect.flatMap(DatabaseUrl, throwawayDatabase), databaseFromUrl)).pipe(
  Layer.provide(DatabaseUrl.Live)
)

// A replay waits on nothing: the CRM simulator answers at once and never rate-limits the run.
const BenchCrm = Layer.merge(
  Layer.effectContext(Effect.map(Effect.context<CrmClient>(), Context.pick(CrmClient))).pipe(
    Layer.provide(crmSimulated({ latencyMs: 0, rate: 1_000_000 }))
  ),
  CrmDirectory.Default
)

/** The keys of a run's own: it signs nothing that outlives its database, and writes no key file. */
const runKeys = Layer.unwrapEffect(Effect.configProviderWith((current) =>
  Effect.sync(() => {
    const keys = new Map([
      ["BREIN_AUDIT_KEY", randomBytes(32).toString("base64")],
      ["BREIN_SECRET_KEY", randomBytes(32).toString("base64")]
    ])
    return Layer.setConfigProvider(ConfigProvider.orElse(ConfigProvider.fromMap(keys), () => current))
  })
))

/**
 * The program's services (the real registry, executor, catalog and Luna) with a CRM simulator that
 * does not wait. Needs SqlClient and Luna's model (ModelGateway).
 */
export const BenchServicesLive = Layer.merge(servicesOver(sources, ConnectedLive), Credits.Default).pipe(
  Layer.provide(IndicadoresLive),
  Layer.provide(BenchCrm),
  Layer.provide(runKeys)
)

/** The scripted model as Luna's ModelGateway, and its replay side (ReplayModel). */
export const ScriptedModelLive = Layer.mergeAll(
  Layer.effect(ModelGateway, Effect.map(ScriptedModel, (model) => ModelGateway.of({ ready: model.ready, complete: model.complete }))),
  Layer.effect(ReplayModel, Effect.map(ScriptedModel, (model) => model.replay))
).pipe(Layer.provideMerge(ScriptedModel.Default))

/** The configured model, every call kept for writing replays (--record). */
export const RecordingModelLive = Layer.unwrapEffect(Effect.gen(function* () {
  const recording = yield* recordingModel(yield* ModelGateway)
  return Layer.merge(Layer.succeed(ModelGateway, recording.gateway), Layer.succeed(ReplayModel, recording.replay))
})).pipe(Layer.provide(ModelGatewayLive))

/** Everything `brein bench` runs on: the services over a throwaway database, Luna over the given model. */
export const benchWith = <A, E, R>(model: Layer.Layer<A | ModelGateway | ReplayModel, E, R>) =>
  BenchServicesLive.pipe(Layer.provideMerge(model), Layer.provideMerge(BenchDatabaseLive))
