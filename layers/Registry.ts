import { CoreConnector, EchoConnector } from "../services/connectors/Core.ts"
import { SiiConnector } from "../services/connectors/sii/Tools.ts"

/** Every connector and catalog family the service hosts. */
export const sources = [CoreConnector, EchoConnector, SiiConnector] as const
