import { Effect, Layer } from "effect"
import { ChangeAudit } from "../services/audit/ChangeAudit.ts"
import { ConnectionCredentials } from "../services/connections/ConnectionCredentials.ts"
import { Connections } from "../services/connections/Connections.ts"
import { BancoCache } from "../services/connectors/banco/BancoCache.ts"
import { makeBancoSync } from "../services/connectors/banco/BancoSync.ts"
import { RcvCache } from "../services/connectors/sii/RcvCache.ts"
import { makeSiiSync } from "../services/connectors/sii/SiiSync.ts"
import { ConnectorSyncs } from "../services/sync/ConnectorSync.ts"
import { SyncJobs } from "../services/sync/SyncJobs.ts"
import { SyncSettings } from "../services/sync/SyncSettings.ts"
import { SyncWorker } from "../services/sync/SyncWorker.ts"
import { BancoUpstream, guardedBanco } from "../services/upstream/BancoUpstream.ts"
import { guardedSii, SiiUpstream } from "../services/upstream/SiiUpstream.ts"
import { UpstreamsLive } from "./Upstreams.ts"
import { VaultKeyLive } from "./Vault.ts"

const ConnectorSyncsLive = Layer.effect(
  ConnectorSyncs,
  Effect.map(Effect.all([makeSiiSync, makeBancoSync]), (syncs) => new Map(syncs.map((s) => [s.connector, s]))).pipe(
    // Every upstream step of a sync first checks that the sync still holds its session lease.
    Effect.provideServiceEffect(SiiUpstream, Effect.map(SiiUpstream, guardedSii)),
    Effect.provideServiceEffect(BancoUpstream, Effect.map(BancoUpstream, guardedBanco))
  )
)

/**
 * Connections, durable sync jobs and their worker, and the caches the `.consultar` tools read.
 * Needs SqlClient; the upstream clients come from `upstreams` (simulators by default).
 */
export const connectedWith = <E, R>(upstreams: Layer.Layer<Layer.Layer.Success<typeof UpstreamsLive>, E, R>) =>
  Layer.mergeAll(SyncWorker.Default, RcvCache.Default, BancoCache.Default, ConnectionCredentials.Default, ChangeAudit.Default).pipe(
    Layer.provideMerge(ConnectorSyncsLive),
    Layer.provideMerge(Layer.mergeAll(Connections.Default, SyncJobs.Default, SyncSettings.Default)),
    Layer.provideMerge(upstreams),
    Layer.provide(VaultKeyLive)
  )

export const ConnectedLive = connectedWith(UpstreamsLive)
