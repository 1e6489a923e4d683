import { Effect, Ref } from "effect"
import type { ModelRequest } from "../../schema/luna/Model.ts"
import type { ModelGatewayApi } from "./ModelGateway.ts"
import type { ModelCall } from "./ReplayModel.ts"

/** A live gateway that keeps each call it passes on (request, reply or why none), for writing replays. */
export const recordingModel = Effect.fn("RecordingModel.make")(function* (inner: ModelGatewayApi) {
  const calls = yield* Ref.make<ReadonlyArray<ModelCall>>([])
  const keep = (call: ModelCall) => Ref.update(calls, (all) => [...all, call])

  const complete = Effect.fn("RecordingModel.complete")(function* (request: ModelRequest) {
    return yield* inner.complete(request).pipe(
      Effect.tap((reply) => keep({ request, reply, problem: null })),
      Effect.tapError((error) => keep({ request, reply: null, problem: error.message }))
    )
  })

  const gateway: ModelGatewayApi = { ready: inner.ready, complete }
  const replay = { scripted: false, begin: () => Ref.set(calls, []), calls: Ref.get(calls) } as const
  return { gateway, replay }
})
