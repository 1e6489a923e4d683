import { NodeContext } from "@effect/platform-node"
import { Chunk, Effect, Layer, Stream } from "effect"
import { BenchServicesLive, ScriptedModelLive } from "../../layers/LunaBench.ts"
import type { ModelReply, ModelToolCall } from "../../schema/luna/Model.ts"
import type { Stage } from "../../schema/tools/Definition.ts"
import { seedBench } from "../../services/luna/bench/Replay.ts"
import { benchOwner } from "../../services/luna/bench/Setup.ts"
import { Luna } from "../../services/luna/Luna.ts"
import type { ModelGateway } from "../../services/luna/ModelGateway.ts"
import type { ReplayModel } from "../../services/luna/ReplayModel.ts"
import { ScriptedModel } from "../../services/luna/ScriptedModel.ts"
import { TestDatabase } from "./TestDatabase.ts"

/** Luna over the scripted model and the program's services, on a test database seeded with the bench's data sets. */
export const lunaBenchTestWith = <A, E, R>(model: Layer.Layer<A | ModelGateway | ReplayModel, E, R>) =>
  Layer.effectDiscard(seedBench()).pipe(
    Layer.provideMerge(BenchServicesLive),
    Layer.provideMerge(model),
    Layer.provideMerge(TestDatabase),
    Layer.provideMerge(NodeContext.layer)
  )

export const LunaBenchTest = lunaBenchTestWith(ScriptedModelLive)

let calls = 0

/** A tool call as a model writes it: arguments as JSON text. */
export const call = (tool: string, args: unknown): ModelToolCall => ({ id: `call_${++calls}`, tool, arguments: JSON.stringify(args) })

export const callsReply = (...toolCalls: ReadonlyArray<ModelToolCall>): ModelReply => ({
  content: null,
  tool_calls: toolCalls,
  model: "scripted"
})
export const textReply = (content: string): ModelReply => ({ content, tool_calls: [], model: "scripted" })

/** One turn of a new session (a workspace of its own) played by the scripted model: its events, the model calls, who asked. */
export const scriptedTurn = (replies: ReadonlyArray<ModelReply>, message: string, stage: Stage = "prospectando") =>
  Effect.gen(function* () {
    const luna = yield* Luna
    const model = yield* ScriptedModel
    const who = yield* benchOwner("test", "paid")
    const session = yield* luna.create(who, { stage })
    yield* model.load(replies)
    const events = Chunk.toReadonlyArray(yield* Stream.runCollect(luna.turn(who, session.id, message)))
    const end = events[events.length - 1]
    if (end?.type !== "turn.completed") return yield* Effect.dieMessage(`the turn did not complete: ${JSON.stringify(end)}`)
    return { who, session, events, end, calls: yield* model.calls }
  })
