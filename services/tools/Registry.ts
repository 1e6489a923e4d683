import { Context, Effect, Layer, Option, Schema, SchemaAST } from "effect"
import { toJsonSchema } from "../../schema/tools/JsonSchema.ts"
import type { InvalidInput } from "../../schema/Errors.ts"
import type { Descriptor, ToolDocument } from "../../schema/tools/Definition.ts"
import { Persist } from "../pipeline/Persist.ts"
import { check, type Entry, type RegistryInvalid } from "./Invariants.ts"
import type { Source } from "./Source.ts"
import type { AnyTool, Prepared, ToolContext } from "./Tool.ts"

export interface RegisteredTool {
  readonly descriptor: Descriptor
  readonly document: ToolDocument
  readonly requiresConnection: boolean
  readonly prepare: (raw: unknown) => Effect.Effect<Prepared<never>, InvalidInput>
}

export interface RegistryApi {
  readonly tools: ReadonlyArray<RegisteredTool>
  /** Tools callable from outside the process (MCP, HTTP). */
  readonly external: ReadonlyArray<RegisteredTool>
  readonly get: (id: string) => Option.Option<RegisteredTool>
}

type SourceContext<S> = S extends { readonly tools: ReadonlyArray<infer T> } ? ToolContext<T> : never

const jsonSchema = (schema: Schema.Schema.AnyNoContext): Record<string, unknown> => {
  const made = toJsonSchema(schema)
  if (SchemaAST.isTypeLiteral(schema.ast) && schema.ast.propertySignatures.length === 0 && schema.ast.indexSignatures.length === 0) {
    return { type: "object", properties: {}, additionalProperties: false }
  }
  if (made["type"] === undefined && made["$ref"] === undefined && made["anyOf"] === undefined) {
    return { type: "object", properties: {}, additionalProperties: false, ...made }
  }
  return made
}

const register = (source: Source, tool: AnyTool, context: Context.Context<never>): RegisteredTool => {
  const descriptor: Descriptor = {
    ...tool.spec,
    stages: [...tool.spec.stages],
    external: tool.spec.external ?? true,
    scope: tool.spec.scope ?? null,
    connector: source.kind === "connector" ? source.id : null
  }
  const requiresConnection = source.kind === "connector" && source.requiresConnection
  return {
    descriptor,
    requiresConnection,
    document: {
      ...descriptor,
      requiresConnection,
      inputSchema: jsonSchema(tool.input),
      outputSchema: jsonSchema(tool.output)
    },
    prepare: (raw) =>
      Effect.map(tool.prepare(raw), (run): Prepared<never> => (info, persist) =>
        Effect.mapInputContext(run(info, persist), (outer: Context.Context<never>) => {
          // Persist is never inherited: only the read plane gets it, and only this call's buffer.
          const base = Context.omit(Persist)(Context.merge(context, outer))
          const withPersist = persist !== null && descriptor.plane === "read" ? Context.add(base, Persist, persist) : base
          // A tool's own requirements were erased when it was stored as AnyTool; the registry holds them.
          return withPersist as Context.Context<unknown>
        })
      )
  }
}

/** The registry of every tool, checked against the invariants of DESIGN §4.3 when built. */
export class Registry extends Context.Tag("brein/tools/Registry")<Registry, RegistryApi>() {
  static make = <const S extends ReadonlyArray<Source>>(sources: S) =>
    Effect.gen(function* () {
      const context = yield* Effect.context<never>()
      const entries: Array<Entry & { readonly tool: RegisteredTool }> = sources.flatMap((source) =>
        source.tools.map((tool) => {
          const registered = register(source, tool, context)
          return { source, descriptor: registered.descriptor, tool: registered }
        })
      )
      yield* check(sources, entries)
      const tools = entries.map((e) => e.tool)
      const byId = new Map(tools.map((t) => [t.descriptor.id, t]))
      return Registry.of({
        tools,
        external: tools.filter((t) => t.descriptor.external),
        get: (id) => Option.fromNullable(byId.get(id))
      })
      // The tools' requirements are erased when they are stored; this restores them for the layer graph.
    }) as Effect.Effect<RegistryApi, RegistryInvalid, Exclude<SourceContext<S[number]>, Persist>>

  static layer = <const S extends ReadonlyArray<Source>>(sources: S) => Layer.effect(Registry, Registry.make(sources))
}
