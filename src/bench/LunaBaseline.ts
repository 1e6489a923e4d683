import { Duration, Effect, Either } from "effect"
import { fill } from "../../services/luna/bench/Placeholders.ts"
import type { BriefRun } from "../../services/luna/bench/Replay.ts"
import { applySetup, benchOwner } from "../../services/luna/bench/Setup.ts"
import { Luna } from "../../services/luna/Luna.ts"
import { Executor } from "../../services/pipeline/Executor.ts"

/** The tool calls a brief's turn ran through the executor (refused ones and the loop's own functions left out), in order. */
const executedCalls = (run: BriefRun) => {
  const ran = new Set(run.events.flatMap((e) => (e.type === "tool" && e.state === "output-available" ? [e.tool_call_id] : [])))
  return run.brief.replies.flatMap((reply) => reply.tool_calls.filter((call) => ran.has(call.id)))
}

/**
 * The same brief without the loop: a workspace and session of its own, its setup (not timed), then the
 * tool calls its turn ran, straight through the executor, each result bound as r1, r2… for the next.
 * Answers the time of the calls alone.
 */
export const baselineOf = (run: BriefRun) =>
  Effect.gen(function* () {
    const luna = yield* Luna
    const executor = yield* Executor
    const who = yield* benchOwner(run.brief.id, run.brief.setup.plan ?? "paid")
    const session = yield* luna.create(who, run.brief.setup.stage === undefined ? {} : { stage: run.brief.setup.stage })
    const bindings = new Map(yield* applySetup(who, session.id, run.brief.setup))
    const calls = executedCalls(run)
    const [elapsed] = yield* Effect.timed(Effect.forEach(calls, (call, i) =>
      Effect.gen(function* () {
        const args = Either.getOrThrow(fill(call.arguments, bindings))
        const response = yield* executor.call(call.tool, JSON.parse(args), {
          surface: "luna",
          principal: who.principal,
          sessionId: session.id
        })
        const { meta: _meta, ...payload } = response
        bindings.set(`r${i + 1}`, { ref: `r${i + 1}`, ...payload })
      }), { discard: true }))
    return { calls: calls.length, millis: Duration.toMillis(elapsed) }
  })
