import { HttpApiClient, HttpClient, HttpClientRequest, HttpServer } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { Effect, Layer, Option, Redacted } from "effect"
import { ServicesLive } from "../../../layers/App.ts"
import { BreinApi } from "../../../schema/http/Api.ts"
import type { Plan } from "../../../schema/tools/Definition.ts"
import { Workspaces } from "../../../services/workspace/Workspaces.ts"
import { listen, serveOn } from "../../../src/http/Server.ts"
import { TestDatabase } from "../../support/TestDatabase.ts"

/** The listening socket as `serve` opens it (the Node bridge in front), on a random port; the HttpClient targets it. */
const ListenTest = HttpServer.layerTestClient.pipe(
  Layer.provide(NodeHttpClient.layerWithoutAgent),
  Layer.provide(NodeHttpClient.makeAgentLayer({ keepAlive: false })),
  Layer.provideMerge(listen(0))
)

/** The app exactly as `serve` mounts it over the given services, on a random port, over a fresh database. */
export const httpTestOver = <A, E, R>(services: Layer.Layer<A, E, R>) =>
  serveOn(ListenTest).pipe(Layer.provideMerge(services), Layer.provideMerge(TestDatabase))

/** The app exactly as `serve` mounts it, on a random port, over a fresh database; the HttpClient targets it. */
export const HttpTest = httpTestOver(ServicesLive)

export const issueKey = (workspace: string, plan: Plan) =>
  Effect.flatMap(Workspaces, (w) => w.issueKey({ workspace, plan: Option.some(plan) })).pipe(
    Effect.map((issued) => issued.key)
  )

export const apiClient = (key: Option.Option<Redacted.Redacted<string>>) =>
  HttpApiClient.make(BreinApi, {
    transformClient: (client) =>
      Option.match(key, {
        onNone: () => client,
        onSome: (k) => HttpClient.mapRequest(client, HttpClientRequest.bearerToken(Redacted.value(k)))
      })
  })

/** A request the typed client cannot express; answers status, content type and body text. */
export const rawRequest = (request: HttpClientRequest.HttpClientRequest) =>
  Effect.flatMap(HttpClient.HttpClient, (client) => client.execute(request)).pipe(
    Effect.flatMap((response) =>
      Effect.map(response.text, (text) => ({
        status: response.status,
        contentType: response.headers["content-type"] ?? "",
        retryAfter: response.headers["retry-after"],
        text
      }))
    ),
    Effect.scoped
  )
