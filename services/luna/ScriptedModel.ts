import { Effect, Either, Ref } from "effect"
import type { Brief } from "../../schema/luna/Brief.ts"
import { ModelUnavailable } from "../../schema/luna/LunaErrors.ts"
import type { ModelReply, ModelRequest } from "../../schema/luna/Model.ts"
import { type Bindings, fillReply, resultBindings } from "./bench/Placeholders.ts"
import type { ModelCall } from "./ReplayModel.ts"

export const SCRIPTED_MODEL = "scripted"

interface Script {
  readonly replies: ReadonlyArray<ModelReply>
  readonly bindings: Bindings
  readonly calls: ReadonlyArray<ModelCall>
}

const refused = (problem: string) =>
  new ModelUnavailable({
    message: `the scripted model cannot answer: ${problem}`,
    attempts: [{ model: SCRIPTED_MODEL, problem }],
    hint: "A replay's recorded replies no longer match the turn: record the brief again (brein bench --record)"
  })

/**
 * A model that answers each call with the next recorded reply, placeholders filled from the run (the
 * setup's bindings and the results the request carries), and keeps every request it got. A call past
 * the script fails (ModelUnavailable, so the loop ends the turn as it would without a model).
 */
export class ScriptedModel extends Effect.Service<ScriptedModel>()("brein/luna/ScriptedModel", {
  effect: Effect.gen(function* () {
    const script = yield* Ref.make<Script>({ replies: [], bindings: new Map(), calls: [] })

    const load = Effect.fn("ScriptedModel.load")(function* (replies: ReadonlyArray<ModelReply>, bindings: Bindings = new Map()) {
      yield* Ref.set(script, { replies, bindings, calls: [] })
    })

    const complete = Effect.fn("ScriptedModel.complete")(function* (request: ModelRequest) {
      const answer = yield* Ref.modify(script, (current): readonly [Either.Either<ModelReply, string>, Script] => {
        const next = current.replies[current.calls.length]
        const answer = next === undefined
          ? Either.left(`the script ran out after ${current.replies.length} replies`)
          : Either.mapLeft(fillReply(next, new Map([...current.bindings, ...resultBindings(request.messages)])), (e) => e.message)
        const call: ModelCall = Either.match(answer, {
          onLeft: (problem) => ({ request, reply: null, problem }),
          onRight: (reply) => ({ request, reply, problem: null })
        })
        return [answer, { ...current, calls: [...current.calls, call] }]
      })
      return yield* Either.match(answer, { onLeft: (problem) => Effect.fail(refused(problem)), onRight: Effect.succeed })
    })

    const calls = Effect.map(Ref.get(script), (current) => current.calls)

    /** The replay side of the scripted model: a brief's turn plays its recorded replies. */
    const replay = {
      scripted: true,
      begin: (brief: Brief, bindings: Bindings) => load(brief.replies, bindings),
      calls
    } as const

    return { load, complete, calls, replay, ready: Effect.void }
  })
}) {}
