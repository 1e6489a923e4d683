import { HttpClient, HttpClientRequest } from "@effect/platform"
import { Data, Effect } from "effect"
import { leading } from "../../schema/Length.ts"
import type { Target } from "./Load.ts"

export class ProbeFailed extends Data.TaggedError("ProbeFailed")<{ readonly message: string }> {}

export type Accepts = (status: number, body: string) => boolean

/** One request before (and after) the load: a server that answers errors fast must not look fast. */
export const probe = Effect.fn("Bench.probe")(function* (name: string, target: Target, accepts: Accepts) {
  const client = yield* HttpClient.HttpClient
  const request = HttpClientRequest.post(target.url).pipe(
    HttpClientRequest.setHeaders(target.headers),
    HttpClientRequest.bodyText(target.body, target.headers["content-type"] ?? "application/json")
  )
  const [status, body] = yield* client.execute(request).pipe(
    Effect.flatMap((response) => Effect.map(response.text, (text) => [response.status, text] as const)),
    Effect.scoped,
    Effect.mapError((cause) => new ProbeFailed({ message: `${name}: ${cause.message}` }))
  )
  if (!accepts(status, body)) return yield* new ProbeFailed({ message: `${name} answered ${status}: ${leading(body, 500)}` })
})
