import { HttpApiBuilder } from "@effect/platform"
import { Effect, Option } from "effect"
import { ToolNotFound } from "../../schema/Errors.ts"
import { isToolId } from "../../schema/Ids.ts"
import { BreinApi } from "../../schema/http/Api.ts"
import { CurrentPrincipal } from "../../schema/http/Security.ts"
import { Executor } from "../../services/pipeline/Executor.ts"
import { Registry } from "../../services/tools/Registry.ts"
import { Gate, shallow } from "./Gate.ts"

export const ToolsLive = HttpApiBuilder.group(BreinApi, "tools", (handlers) =>
  Effect.gen(function* () {
    const registry = yield* Registry
    const executor = yield* Executor
    const gate = yield* Gate
    const documents = { tools: registry.external.map((t) => t.document) }
    return handlers
      .handle("list", () => Effect.succeed(documents))
      .handle("get", ({ path }) =>
        Option.liftPredicate(path.id, isToolId).pipe(
          Option.flatMap(registry.get),
          Option.filter((t) => t.descriptor.external),
          Option.match({ onNone: () => Effect.fail(ToolNotFound.of(path.id)), onSome: (t) => Effect.succeed(t.document) })
        )
      )
      .handle("execute", ({ path, payload, headers }) =>
        Effect.gen(function* () {
          // a malformed id never reaches the executor, so nothing of it reaches the audit log
          if (!isToolId(path.id)) return yield* ToolNotFound.of(path.id)
          yield* shallow(payload.input, "input")
          const principal = yield* CurrentPrincipal
          const connectionId = yield* gate.connection(headers)
          return yield* executor.call(path.id, payload.input, { surface: "http", principal, connectionId })
        })
      )
  })
)
