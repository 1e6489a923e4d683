import { SqlClient } from "@effect/sql"
import { ConfigProvider, Duration, Effect, Layer, Schema } from "effect"
import { ServicesLive, servicesOver } from "../../layers/App.ts"
import { connectedWith } from "../../layers/Connected.ts"
import { CrmToolsLive } from "../../layers/Crm.ts"
import { ModelGatewayLive } from "../../layers/LunaModel.ts"
import { sources } from "../../layers/Registry.ts"
import type { UpstreamsLive } from "../../layers/Upstreams.ts"
import { CreateConnection } from "../../schema/connections/Connection.ts"
import type { JobState } from "../../schema/connections/SyncJob.ts"
import type { ConnectionId } from "../../schema/Ids.ts"
import type { Principal } from "../../schema/Principal.ts"
import { rutFromBody } from "../../schema/upstream/Rut.ts"
import { Connections } from "../../services/connections/Connections.ts"
import { Executor } from "../../services/pipeline/Executor.ts"
import { type JobRow, SyncJobs } from "../../services/sync/SyncJobs.ts"
import { BancoSimulator } from "../../services/upstream/BancoSimulator.ts"
import { IndicadoresSimulator } from "../../services/upstream/IndicadoresSource.ts"
import { SiiSimulator } from "../../services/upstream/SiiSimulator.ts"
import type { SiiUpstream } from "../../services/upstream/SiiUpstream.ts"
import { waitUntil } from "./Eventually.ts"
import { SuiteClock } from "./SuiteClock.ts"
import { callContext } from "./TestLayers.ts"

/** A fixed credentials key: tests can open what the service sealed. */
export const SECRET_KEY = Buffer.from("brein-test-key-0123456789abcdef!").toString("base64")

/** Settings over the tests' own; `null` leaves one unset (BREIN_SECRET_KEY: null, for the key kept in the data folder). */
export type Settings = Readonly<Record<string, string | null>>

const given = (settings: Settings) =>
  Object.entries(settings).flatMap(([name, value]): Array<[string, string]> => value === null ? [] : [[name, value]])

/** Instant upstreams, a fixed key, a short lease and a fast poll, on the suite's clock; `overrides` wins. */
export const syncSettings = (overrides: Settings = {}) =>
  Layer.merge(
    SuiteClock,
    Layer.setConfigProvider(
      ConfigProvider.fromMap(
        new Map(given({
          UPSTREAM_TIME_SCALE: "0",
          BREIN_SECRET_KEY: SECRET_KEY,
          BREIN_SYNC_LEASE_SECONDS: "2",
          BREIN_SYNC_POLL_MS: "20",
          BREIN_SYNC_MAX_ATTEMPTS: "3",
          ...overrides
        }))
      )
    )
  )

/** The program's service graph with test settings; the database comes from the caller. */
export const connectedServices = (overrides: Settings = {}) => ServicesLive.pipe(Layer.provide(syncSettings(overrides)))

/** The same graph over upstream doubles of the test's own (e.g. a simulator that sees another day). */
export const servicesWithUpstreams = <E>(
  upstreams: Layer.Layer<Layer.Layer.Success<typeof UpstreamsLive>, E>,
  overrides: Settings = {}
) =>
  servicesOver(sources, connectedWith(upstreams)).pipe(
    Layer.provide(IndicadoresSimulator.layerWith({ timeScale: 0 })),
    Layer.provide(CrmToolsLive),
    Layer.provide(ModelGatewayLive),
    Layer.provide(syncSettings(overrides))
  )

/** Instant upstreams, with the SII client given (or the SII simulator). */
export const simulators = (sii: Layer.Layer<SiiUpstream | SiiSimulator> = SiiSimulator.layerWith({ timeScale: 0 })) =>
  Layer.mergeAll(sii, BancoSimulator.layerWith({ timeScale: 0 }), IndicadoresSimulator.layerWith({ timeScale: 0 }))

/** ServicesLive with its simulators at a time scale; their Tags (session logs) stay visible to the test. */
export const simulatedServices = (overrides: Settings = {}, timeScale = 0) =>
  connectedServices({ UPSTREAM_TIME_SCALE: String(timeScale), ...overrides })

/** A valid RUT per test, so no two tests share an upstream user (and its session lock). */
export const rut = (body: number) => rutFromBody(body)

const decodeCreate = Schema.decodeUnknown(CreateConnection)

export const createConnection = (principal: Principal, input: unknown) =>
  Effect.flatMap(Effect.orDie(decodeCreate(input)), (decoded) => Effect.flatMap(Connections, (c) => c.create(principal, decoded)))

export const siiConnection = (principal: Principal, rutText: string, clave = "clave-normal-123") =>
  Effect.orDie(createConnection(principal, { connector: "sii", credentials: { rut: rutText, clave } }))

export const bancoConnection = (principal: Principal, rutText: string, clave = "clave-normal-123", institution = "bci") =>
  Effect.orDie(createConnection(principal, { connector: "banco", institution, credentials: { rut: rutText, clave } }))

export const execute = (principal: Principal, toolId: string, input: unknown, connectionId?: ConnectionId) =>
  Effect.flatMap(
    Executor,
    (executor) => executor.call(toolId, input, callContext(principal, connectionId === undefined ? {} : { connectionId }))
  )

export const jobsOf = (connectionId: string) => Effect.flatMap(SyncJobs, (jobs) => jobs.list(connectionId, 100))

/** Polls the jobs of a connection until `done` holds (the worker runs in the background). */
export const waitForJobs = (
  connectionId: string,
  done: (jobs: ReadonlyArray<JobRow>) => boolean,
  timeout: Duration.DurationInput = "20 seconds"
) =>
  waitUntil(jobsOf(connectionId), done, {
    what: `the jobs of ${connectionId} settling`,
    tries: Math.ceil(Duration.toMillis(timeout) / 25)
  }).pipe(Effect.orDie)

const FINISHED: ReadonlyArray<JobState> = ["sincronizada", "parcial", "error"]
export const allFinished = (jobs: ReadonlyArray<JobRow>) => jobs.length > 0 && jobs.every((j) => FINISHED.includes(j.state))

/** Rows of a table that belong to a connection (the cache, coverage, history, jobs). */
export const countRows = (
  table: "rcv_documents" | "sync_coverage" | "cache_history" | "sync_jobs" | "bank_accounts" | "bank_movements",
  connectionId: string
) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql(table)} WHERE connection_id = ${connectionId}`.pipe(
        Effect.map((rows) => rows[0]?.n ?? 0),
        Effect.orDie
      )
  )
