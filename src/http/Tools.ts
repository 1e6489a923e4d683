import { HttpApiBuilder, HttpApp, HttpServerResponse } from "@effect/platform"
import { Effect, Option } from "effect"
import { BreinApi } from "../../schema/http/Api.ts"
import { CurrentPrincipal } from "../../schema/http/Security.ts"
import { isToolId } from "../../schema/Ids.ts"
import { Registry } from "../../services/tools/Registry.ts"
import { makeExecute, makeToolHeaders } from "./Execute.ts"

export const ToolsLive = HttpApiBuilder.group(BreinApi, "tools", (handlers) =>
  Effect.gen(function* () {
    const registry = yield* Registry
    const execute = yield* makeExecute
    const toolHeaders = yield* makeToolHeaders
    const documents = { tools: registry.external.map((t) => t.document) }
    return handlers
      .handle("list", () => Effect.succeed(documents))
      .handle("get", ({ path }) =>
        Option.liftPredicate(path.id, isToolId).pipe(
          Option.flatMap(registry.get),
          Option.filter((t) => t.descriptor.external),
          Option.match({ onNone: () => Effect.fail(registry.notFound(path.id, "external")), onSome: (t) => Effect.succeed(t.document) })
        ))
      .handle("execute", ({ path, payload, headers }) =>
        HttpApp.appendPreResponseHandler((_, response) =>
          Effect.succeed(HttpServerResponse.setHeaders(response, toolHeaders(path.id)))
        ).pipe(Effect.zipRight(Effect.flatMap(CurrentPrincipal, (principal) => execute(path.id, payload, headers, principal)))))
  }))
