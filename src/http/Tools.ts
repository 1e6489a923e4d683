import { HttpApiBuilder } from "@effect/platform"
import { Effect, Option, Schema } from "effect"
import { BadRequest, ToolNotFound } from "../../schema/Errors.ts"
import { BreinApi } from "../../schema/http/Api.ts"
import { CurrentPrincipal } from "../../schema/http/Security.ts"
import { ConnectionId } from "../../schema/Ids.ts"
import { Executor } from "../../services/pipeline/Executor.ts"
import { Registry } from "../../services/tools/Registry.ts"

const decodeConnection = Schema.decodeUnknown(Schema.UndefinedOr(ConnectionId))

export const ToolsLive = HttpApiBuilder.group(BreinApi, "tools", (handlers) =>
  Effect.gen(function* () {
    const registry = yield* Registry
    const executor = yield* Executor
    const documents = { tools: registry.external.map((t) => t.document) }
    return handlers
      .handle("list", () => Effect.succeed(documents))
      .handle("get", ({ path }) =>
        registry.get(path.id).pipe(
          Option.filter((t) => t.descriptor.external),
          Option.match({ onNone: () => Effect.fail(ToolNotFound.of(path.id)), onSome: (t) => Effect.succeed(t.document) })
        )
      )
      .handle("execute", ({ path, payload, headers }) =>
        Effect.gen(function* () {
          const principal = yield* CurrentPrincipal
          const connectionId = yield* decodeConnection(headers["x-connect-connection"]).pipe(
            Effect.mapError(() => new BadRequest({ message: "X-Connect-Connection must be a connection id like conn_…" }))
          )
          return yield* executor.call(path.id, payload.input, { surface: "http", principal, connectionId })
        })
      )
  })
)
