import { CoreConnector, EchoConnector } from "../services/connectors/Core.ts"

/** Every connector and catalog family the service hosts. */
export const sources = [CoreConnector, EchoConnector] as const
