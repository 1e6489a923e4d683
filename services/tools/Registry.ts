import type { Schema } from "effect"
import { Context, Effect, Either, Layer, Option, SchemaAST, Tracer } from "effect"
import { type InvalidInput, ToolNotFound } from "../../schema/Errors.ts"
import type { ToolId } from "../../schema/Ids.ts"
import type { CallPolicy, Descriptor, ToolDocument } from "../../schema/tools/Definition.ts"
import { toJsonSchema } from "../../schema/tools/JsonSchema.ts"
import { check, type Entry, type RegistryInvalid } from "./Invariants.ts"
import { nearestName } from "./Nearest.ts"
import { Persist, type PersistApi } from "./Persist.ts"
import { type DirectPolicy, directPolicyOf, policyOf } from "./Policy.ts"
import type { Source } from "./Source.ts"
import type { AnyTool, CallInfo, Prepared, ToolContext } from "./Tool.ts"

type Buffered = Extract<Prepared<never>, { readonly access: "buffered" }>
type Direct = Exclude<Prepared<never>, { readonly access: "buffered" }>

/** A decoded call with the policy it runs under: a read call is buffered, every other runs directly. */
export type Decoded =
  | { readonly policy: "read"; readonly prepared: Buffered }
  | { readonly policy: DirectPolicy; readonly prepared: Direct }

export interface RegisteredTool {
  readonly descriptor: Descriptor
  readonly document: ToolDocument
  readonly policy: CallPolicy
  readonly requiresConnection: boolean
  readonly decode: (raw: unknown) => Either.Either<Decoded, InvalidInput>
}

export interface RegistryApi {
  readonly tools: ReadonlyArray<RegisteredTool>
  /** Tools callable from outside the process (MCP, HTTP). */
  readonly external: ReadonlyArray<RegisteredTool>
  readonly get: (id: ToolId) => Option.Option<RegisteredTool>
  /**
   * The refusal of an id no tool the caller can reach has (`external`: a caller outside the process),
   * naming the one it probably meant, if one is near: never a tool the caller cannot reach.
   */
  readonly notFound: (id: string, reach: "external" | "all") => ToolNotFound
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
  const policy = policyOf(descriptor)
  const direct = directPolicyOf(descriptor)
  const requiresConnection = tool.access !== "open"
  // Persist is never inherited: only the read plane gets it, and only this call's buffer. The step that
  // runs the handler is the parent of its spans: provided here, with the rest of its context, at once.
  // One copy of the registry's context and the caller's per call (Context.merge, omit and add would each copy it again).
  const provide = <A, E>(effect: Effect.Effect<A, E, unknown>, info: CallInfo, persist: PersistApi | null): Effect.Effect<A, E> =>
    Effect.mapInputContext(effect, (outer: Context.Context<never>) => {
      const services = new Map(context.unsafeMap)
      for (const [key, service] of outer.unsafeMap) services.set(key, service)
      services.delete(Persist.key)
      services.set(Tracer.ParentSpan.key, info.span)
      if (persist !== null) services.set(Persist.key, persist)
      // A tool's own requirements were erased when it was stored as AnyTool; the registry holds them.
      return Context.unsafeMake<unknown>(services)
    })
  const bind = (prepared: Prepared<unknown>): Decoded => {
    switch (prepared.access) {
      case "open": {
        const metered = prepared.metered
        const run = (info: CallInfo) => provide(prepared.run(info), info, null)
        return metered === undefined
          ? { policy: direct, prepared: { access: "open", run } }
          : {
            policy: direct,
            prepared: { access: "open", run, metered: { ...metered, quote: (info) => provide(metered.quote(info), info, null) } }
          }
      }
      case "connected":
        return { policy: direct, prepared: { access: "connected", run: (info, id) => provide(prepared.run(info, id), info, null) } }
      case "buffered":
        return {
          policy: "read",
          prepared: {
            access: "buffered",
            run: (info, persist) =>
              Effect.map(provide(prepared.run(info, persist), info, persist), (committed) => ({
                answer: committed.answer,
                afterCommit: Option.map(committed.afterCommit, (after) => (later) => provide(after(later), later, null))
              }))
          }
        }
    }
  }
  return {
    descriptor,
    policy,
    requiresConnection,
    document: {
      ...descriptor,
      policy,
      requiresConnection,
      inputSchema: jsonSchema(tool.input),
      outputSchema: jsonSchema(tool.output)
    },
    decode: (raw) => Either.map(tool.prepare(raw), bind)
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
          return { source, descriptor: registered.descriptor, access: tool.access, tool: registered }
        })
      )
      yield* check(sources, entries)
      const tools = entries.map((e) => e.tool)
      const byId = new Map<string, RegisteredTool>(tools.map((t) => [t.descriptor.id, t]))
      const external = tools.filter((t) => t.descriptor.external)
      const ids = { external: external.map((t) => t.descriptor.id), all: tools.map((t) => t.descriptor.id) }
      return Registry.of({
        tools,
        external,
        get: (id) => Option.fromNullable(byId.get(id)),
        notFound: (id, reach) => ToolNotFound.of(id, nearestName(id, ids[reach]))
      })
      // The tools' requirements are erased when they are stored; this restores them for the layer graph.
    }) as Effect.Effect<RegistryApi, RegistryInvalid, Exclude<SourceContext<S[number]>, Persist>>

  static layer = <const S extends ReadonlyArray<Source>>(sources: S) => Layer.effect(Registry, Registry.make(sources))
}
