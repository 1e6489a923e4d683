import { ConfigProvider, Effect, Layer, Redacted, Schema } from "effect"
import { randomBytes } from "node:crypto"
import { CreateConnection } from "../../../../schema/connections/Connection.ts"
import type { Principal } from "../../../../schema/Principal.ts"
import { CursorKey } from "../../../../services/catalog/CursorKey.ts"
import { SealedCursor } from "../../../../services/catalog/SealedCursor.ts"
import { Connections } from "../../../../services/connections/Connections.ts"
import { VaultKey } from "../../../../services/connections/Vault.ts"
import { BancoCache } from "../../../../services/connectors/banco/BancoCache.ts"
import { makeBancoSync } from "../../../../services/connectors/banco/BancoSync.ts"
import { BancoConnector } from "../../../../services/connectors/banco/Tools.ts"
import { ConnectorSyncs } from "../../../../services/sync/ConnectorSync.ts"
import { SyncJobs } from "../../../../services/sync/SyncJobs.ts"
import { SyncSettings } from "../../../../services/sync/SyncSettings.ts"
import { SyncWorker } from "../../../../services/sync/SyncWorker.ts"
import { Registry } from "../../../../services/tools/Registry.ts"
import { BancoSimulator } from "../../../../services/upstream/BancoSimulator.ts"
import { SuiteClock } from "../../../support/SuiteClock.ts"
import { TestDatabase } from "../../../support/TestDatabase.ts"
import { servicesWith } from "../../../support/TestLayers.ts"

const settings = (worker: boolean) =>
  Layer.merge(
    SuiteClock,
    Layer.setConfigProvider(
      ConfigProvider.fromMap(
        new Map([
          ["BREIN_SYNC_WORKER", String(worker)],
          ["BREIN_SYNC_POLL_MS", "20"],
          ["UPSTREAM_TIME_SCALE", "0"]
        ])
      )
    )
  )

const BancoSyncs = Layer.effect(ConnectorSyncs, Effect.map(makeBancoSync, (sync) => new Map([[sync.connector, sync]])))

const Cursors = SealedCursor.Default.pipe(Layer.provide(Layer.succeed(CursorKey, Redacted.make(new Uint8Array(randomBytes(32))))))

/** What the banco tools need: the sync machinery (worker on or off), the cache and its sealed cursors, over an instant bank simulator, on the suite's clock. */
export const bancoServices = (worker: boolean) =>
  Layer.mergeAll(SyncWorker.Default, BancoCache.Default, Cursors).pipe(
    Layer.provideMerge(BancoSyncs),
    Layer.provideMerge(Layer.mergeAll(Connections.Default, SyncJobs.Default, SyncSettings.Default)),
    Layer.provideMerge(BancoSimulator.layerWith({ timeScale: 0 })),
    Layer.provide(VaultKey.fixed(randomBytes(32))),
    Layer.provide(settings(worker))
  )

/** The executor over a registry of the banco connector alone, a running sync worker, and a fresh database. */
export const BancoTest = servicesWith(Registry.layer([BancoConnector])).pipe(
  Layer.provideMerge(bancoServices(true)),
  Layer.provideMerge(TestDatabase)
)

const decodeCreate = Schema.decodeUnknown(CreateConnection)

export const bancoConnection = (principal: Principal, rut: string, clave = "secreta-123", institution = "bci") =>
  Effect.gen(function* () {
    const connections = yield* Connections
    const input = yield* Effect.orDie(decodeCreate({ connector: "banco", institution, credentials: { rut, clave } }))
    return yield* Effect.orDie(connections.create(principal, input))
  })
