import { JSONSchema, Schema } from "effect"
import { ConnectionId } from "../../schema/Ids.ts"
import { ToolResponse } from "../../schema/tools/Response.ts"

export type JsonObject = Record<string, unknown>
export type ObjectSchema = JsonObject & { readonly type: "object" }

const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value)

const DEF_PREFIX = "#/$defs/"

/**
 * Effect marks `unknown`/`any`/`object` with `$id: "/schemas/unknown"` and the like; two of them in
 * one document make Ajv (the client's output validator) refuse the whole schema.
 */
const dropEffectIds = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(dropEffectIds)
  if (!isObject(value)) return value
  const out: JsonObject = {}
  for (const [key, child] of Object.entries(value)) {
    if (key === "$id" && typeof child === "string" && child.startsWith("/schemas/")) continue
    out[key] = dropEffectIds(child)
  }
  return out
}

/**
 * MCP wants an object at the root of every tool schema; Effect puts named schemas behind
 * `$ref: "#/$defs/X"`. Inlines that root and splits the `$defs` off so they can be hoisted.
 */
export const splitRoot = (schema: JsonObject): { readonly root: JsonObject; readonly defs: JsonObject } => {
  const cleaned = dropEffectIds(schema)
  const { $schema: _dialect, $defs, ...rest } = isObject(cleaned) ? cleaned : {}
  const defs = isObject($defs) ? $defs : {}
  const ref = rest["$ref"]
  if (typeof ref === "string" && ref.startsWith(DEF_PREFIX)) {
    const target = defs[ref.slice(DEF_PREFIX.length)]
    if (isObject(target)) {
      const { $ref: _ref, ...siblings } = rest
      const root = { ...target, ...siblings }
      const { [ref.slice(DEF_PREFIX.length)]: _inlined, ...others } = defs
      const stillUsed = JSON.stringify([root, others]).includes(JSON.stringify(ref))
      return { root, defs: stillUsed ? defs : others }
    }
  }
  return { root: rest, defs }
}

const withDefs = (root: JsonObject, defs: JsonObject): JsonObject =>
  Object.keys(defs).length === 0 ? root : { ...root, $defs: defs }

/** An MCP `inputSchema`: an object root, even for a tool without input. */
export const objectSchema = (schema: JsonObject): ObjectSchema => {
  const { root, defs } = splitRoot(schema)
  return { properties: {}, ...withDefs(root, defs), type: "object" }
}

export const fromEffectSchema = (schema: Schema.Schema.AnyNoContext): ObjectSchema => objectSchema({ ...JSONSchema.make(schema) })

const envelope = splitRoot({ ...JSONSchema.make(ToolResponse) })

/** The `outputSchema` of a registry tool: the `{ data, meta }` envelope with the tool's output as `data`. */
export const responseSchema = (output: JsonObject): ObjectSchema => {
  const data = splitRoot(output)
  const properties = isObject(envelope.root["properties"]) ? envelope.root["properties"] : {}
  return objectSchema(withDefs(
    { ...envelope.root, properties: { ...properties, data: data.root } },
    { ...envelope.defs, ...data.defs }
  ))
}

const connectionProperty = {
  ...JSONSchema.make(ConnectionId),
  description: "The connection (conn_…) to read from, for clients that cannot send the X-Connect-Connection header"
}

/** Adds the optional `connection` argument to a tool that reads a connection. */
export const withConnectionArgument = (input: ObjectSchema): ObjectSchema => {
  const properties = isObject(input["properties"]) ? input["properties"] : {}
  const { $schema: _dialect, ...connection } = connectionProperty
  return { ...input, properties: { ...properties, connection } }
}
