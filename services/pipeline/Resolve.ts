import { Clock, Context, Effect, Either, FiberRef, Option, type Tracer } from "effect"
import { isToolId } from "../../schema/Ids.ts"
import type { CallContext } from "../../schema/Principal.ts"
import { newIdNow } from "../Ids.ts"
import type { RegisteredTool, RegistryApi } from "../tools/Registry.ts"
import type { Request, Resolved } from "./Call.ts"
import { pure } from "./Step.ts"

const IN_PROCESS = new Set(["luna", "library"])

/**
 * Opens the call in its span (Executor.call): its request id and start time, written on that span,
 * and the clock and tracer its steps use, read from the fiber once.
 */
export const begin = (span: Tracer.Span, toolId: string, rawInput: unknown, context: CallContext) =>
  Effect.withFiberRuntime<Request>((fiber) => {
    const clock = Context.get(fiber.currentDefaultServices, Clock.Clock)
    const tracer = fiber.getFiberRef(FiberRef.currentTracerEnabled) ? Option.some(fiber.currentTracer) : Option.none()
    const startedNanos = clock.unsafeCurrentTimeNanos()
    const requestId = context.requestId ?? newIdNow("req")
    span.attribute("toolId", toolId)
    span.attribute("requestId", requestId)
    span.attribute("surface", context.surface)
    return Effect.succeed({ toolId, rawInput, context, requestId, startedNanos, span, clock, tracer })
  })

/** The tool the caller may reach: `external: false` tools only from inside the process. */
export const visibleTool = (registry: RegistryApi, request: Request): Option.Option<RegisteredTool> =>
  Option.liftPredicate(request.toolId, isToolId).pipe(
    Option.flatMap(registry.get),
    Option.filter((tool) => tool.descriptor.external || IN_PROCESS.has(request.context.surface))
  )

export const resolve = (registry: RegistryApi) =>
  pure("Executor.resolve")((request: Request) =>
    Option.match(visibleTool(registry, request), {
      onNone: () => Either.left(registry.notFound(request.toolId, IN_PROCESS.has(request.context.surface) ? "all" : "external")),
      onSome: (tool) => Either.right({ ...request, tool } satisfies Resolved)
    })
  )
