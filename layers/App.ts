import { Layer } from "effect"
import { AuditCoverage } from "../services/audit/AuditCoverage.ts"
import { AuditStoreSql } from "../services/audit/AuditStoreSql.ts"
import { AuditVerify } from "../services/audit/AuditVerify.ts"
import { Luna } from "../services/luna/Luna.ts"
import { Executor } from "../services/pipeline/Executor.ts"
import { Registry } from "../services/tools/Registry.ts"
import type { Source } from "../services/tools/Source.ts"
import { Workspaces } from "../services/workspace/Workspaces.ts"
import { AuditKeyLive } from "./AuditKey.ts"
import { CatalogLive } from "./Catalog.ts"
import { ConnectedLive } from "./Connected.ts"
import { CrmToolsLive } from "./Crm.ts"
import { CursorsLive } from "./Cursors.ts"
import { DatabaseLive } from "./Database.ts"
import { DirectoryLive } from "./Directory.ts"
import { HumansLive } from "./Humans.ts"
import { IndicadoresLive } from "./Indicadores.ts"
import { ModelGatewayLive } from "./LunaModel.ts"
import { MercadoLive } from "./Mercado.ts"
import { sources } from "./Registry.ts"

type Connected = typeof ConnectedLive

/** The services over a registry of the given sources and the given connected layer (upstreams); Luna's model is the caller's. */
export const servicesOver = <const S extends ReadonlyArray<Source>, E>(
  all: S,
  connected: Layer.Layer<Layer.Layer.Success<Connected>, E, Layer.Layer.Context<Connected>>
) =>
  Luna.Default.pipe(
    Layer.provideMerge(Layer.mergeAll(Executor.Default, Workspaces.Default, AuditVerify.Default, AuditCoverage.Default, HumansLive)),
    Layer.provideMerge(Registry.layer(all)),
    Layer.provideMerge(CatalogLive),
    Layer.provideMerge(connected),
    Layer.provideMerge(DirectoryLive),
    Layer.provideMerge(MercadoLive),
    Layer.provideMerge(CursorsLive),
    Layer.provide(AuditKeyLive.pipe(Layer.provideMerge(AuditStoreSql)))
  )

/** The services over a registry of the given sources; the database is provided by the caller. */
export const servicesWith = <const S extends ReadonlyArray<Source>>(all: S) =>
  servicesOver(all, ConnectedLive).pipe(Layer.provide(ModelGatewayLive))

/** Everything the surfaces need, over a given database (indicators from INDICADORES_URL, the CRM from CRM_BASE_URL, or their simulators). */
export const ServicesLive = servicesWith(sources).pipe(Layer.provide(IndicadoresLive), Layer.provide(CrmToolsLive))

/** The one service graph of the program: services over the configured PostgreSQL. */
export const AppLive = ServicesLive.pipe(Layer.provideMerge(DatabaseLive))
