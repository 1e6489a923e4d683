import { Clock, Effect, Option } from "effect"
import { ToolNotFound } from "../../schema/Errors.ts"
import { isToolId } from "../../schema/Ids.ts"
import type { CallContext } from "../../schema/Principal.ts"
import { newId } from "../Ids.ts"
import { leaf } from "../Span.ts"
import type { RegisteredTool, RegistryApi } from "../tools/Registry.ts"
import type { Request, Resolved } from "./Call.ts"

const IN_PROCESS = new Set(["luna", "library"])

/** Opens the call: its request id, start time and trace, written on the caller's span (Executor.call). */
export const begin = Effect.fnUntraced(function* (toolId: string, rawInput: unknown, context: CallContext) {
  const startedNanos = yield* Clock.currentTimeNanos
  const requestId = context.requestId ?? (yield* newId("req"))
  yield* Effect.annotateCurrentSpan({ toolId, requestId, surface: context.surface })
  const traceId = Option.map(yield* Effect.option(Effect.currentSpan), (span) => span.traceId)
  return { toolId, rawInput, context, requestId, startedNanos, traceId } satisfies Request
})

/** The tool the caller may reach: `external: false` tools only from inside the process. */
export const visibleTool = (registry: RegistryApi, request: Request): Option.Option<RegisteredTool> =>
  Option.liftPredicate(request.toolId, isToolId).pipe(
    Option.flatMap(registry.get),
    Option.filter((tool) => tool.descriptor.external || IN_PROCESS.has(request.context.surface))
  )

export const resolve = (registry: RegistryApi) =>
  leaf("Executor.resolve")(Effect.fnUntraced(function* (request: Request) {
    const tool = visibleTool(registry, request)
    if (Option.isNone(tool)) return yield* ToolNotFound.of(request.toolId)
    return { ...request, tool: tool.value } satisfies Resolved
  }))
