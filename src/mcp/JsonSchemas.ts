import type { Schema } from "effect"
import { ConnectionId } from "../../schema/Ids.ts"
import { isObject, type JsonObject, portable, toJsonSchema } from "../../schema/tools/JsonSchema.ts"
import { ToolResponse } from "../../schema/tools/Response.ts"

export type { JsonObject }
export type ObjectSchema = JsonObject & { readonly type: "object" }

/** An MCP `inputSchema`: an object root, even for a tool without input. */
export const objectSchema = (schema: JsonObject): ObjectSchema => ({ properties: {}, ...portable(schema), type: "object" })

export const fromEffectSchema = (schema: Schema.Schema.AnyNoContext): ObjectSchema => objectSchema(toJsonSchema(schema))

const envelope = toJsonSchema(ToolResponse)

/** The `outputSchema` of a registry tool: the `{ data, meta }` envelope with the tool's output as `data`. */
export const responseSchema = (output: JsonObject): ObjectSchema => {
  const properties = isObject(envelope["properties"]) ? envelope["properties"] : {}
  return objectSchema({ ...envelope, properties: { ...properties, data: portable(output) } })
}

const connectionProperty = {
  ...toJsonSchema(ConnectionId),
  description: "The connection (conn_…) to read from, for clients that cannot send the X-Connect-Connection header"
}

/** Adds the optional `connection` argument to a tool that reads a connection. */
export const withConnectionArgument = (input: ObjectSchema): ObjectSchema => {
  const properties = isObject(input["properties"]) ? input["properties"] : {}
  return { ...input, properties: { ...properties, connection: connectionProperty } }
}
