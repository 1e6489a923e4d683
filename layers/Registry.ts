import { CoreConnector, EchoConnector } from "../services/connectors/Core.ts"
import { Registry } from "../services/tools/Registry.ts"

export const sources = [CoreConnector, EchoConnector] as const

export const RegistryLive = Registry.layer(sources)
