import { CrmCatalog } from "../services/catalog/crm/Tools.ts"
import { CuentaCatalog } from "../services/catalog/Cuenta.ts"
import { EmpresasCatalog } from "../services/catalog/empresas/Tools.ts"
import { MercadoCatalog } from "../services/catalog/mercado/Tools.ts"
import { SecuenciasCatalog } from "../services/catalog/sequences/Tools.ts"
import { SessionCatalog } from "../services/catalog/Session.ts"
import { CerebroCatalog } from "../services/cerebro/Tools.ts"
import { BancoConnector } from "../services/connectors/banco/Tools.ts"
import { CoreConnector, EchoConnector } from "../services/connectors/Core.ts"
import { IndicadoresConnector } from "../services/connectors/indicadores/Tools.ts"
import { SiiConnector } from "../services/connectors/sii/Tools.ts"

/** Every connector and catalog family the service hosts. */
export const sources = [
  CoreConnector,
  EchoConnector,
  IndicadoresConnector,
  SiiConnector,
  BancoConnector,
  CuentaCatalog,
  SessionCatalog,
  CerebroCatalog,
  EmpresasCatalog,
  CrmCatalog,
  MercadoCatalog,
  SecuenciasCatalog
] as const
