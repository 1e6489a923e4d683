import type { Plan } from "../../schema/tools/Definition.ts"
import type { AnyTool } from "./Tool.ts"

/** A connector: a group of tools over one external system, optionally behind a connection. */
export interface ConnectorDefinition<T extends ReadonlyArray<AnyTool> = ReadonlyArray<AnyTool>> {
  readonly kind: "connector"
  readonly id: string
  readonly label: string
  readonly plan: Plan
  readonly requiresConnection: boolean
  readonly tools: T
}

/** A family of the Brein catalog (snake_case ids, all action plane). */
export interface CatalogDefinition<T extends ReadonlyArray<AnyTool> = ReadonlyArray<AnyTool>> {
  readonly kind: "catalog"
  readonly family: string
  readonly tools: T
}

export type Source = ConnectorDefinition | CatalogDefinition

export const connector = <const T extends ReadonlyArray<AnyTool>>(
  definition: Omit<ConnectorDefinition<T>, "kind">
): ConnectorDefinition<T> => ({ kind: "connector", ...definition })

export const catalog = <const T extends ReadonlyArray<AnyTool>>(
  definition: Omit<CatalogDefinition<T>, "kind">
): CatalogDefinition<T> => ({ kind: "catalog", ...definition })
