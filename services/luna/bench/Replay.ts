import { Chunk, Duration, Effect, Either, Stream } from "effect"
import type { BenchReport, BriefMeters } from "../../../schema/luna/BenchMeters.ts"
import type { Brief } from "../../../schema/luna/Brief.ts"
import type { LunaEvent } from "../../../schema/luna/Events.ts"
import { DirectorySeed } from "../../catalog/empresas/DirectorySeed.ts"
import { MarketSeed } from "../../catalog/mercado/MarketSeed.ts"
import { Luna } from "../Luna.ts"
import { type ModelCall, ReplayModel } from "../ReplayModel.ts"
import { metersOf, totalsOf } from "./Meters.ts"
import { type Bindings, resultBindings, unfillReply } from "./Placeholders.ts"
import { applySetup, benchOwner } from "./Setup.ts"

/** The data the briefs were recorded over: small, from a fixed seed, the same in every run. */
export const BENCH_DATA = { seed: "brein", companies: 2_000, awards: 2_000 } as const

/** Loads the bench's directory and Mercado data sets into the (throwaway) database. */
export const seedBench = Effect.fn("Bench.seed")(function* () {
  const directory = yield* (yield* DirectorySeed).load({ seed: BENCH_DATA.seed, companies: BENCH_DATA.companies })
  const market = yield* (yield* MarketSeed).load({ seed: BENCH_DATA.seed, awards: BENCH_DATA.awards })
  return { companies: directory.companies, people: directory.people, awards: market.awards }
})

/** One brief's run: its meters, what the model was asked and answered, the setup's bindings, the events and the turn's wall time. */
export interface BriefRun {
  readonly brief: Brief
  readonly meters: BriefMeters
  readonly calls: ReadonlyArray<ModelCall>
  readonly bindings: Bindings
  readonly events: ReadonlyArray<LunaEvent>
  readonly sessionId: string
  readonly turnMillis: number
  readonly millis: number
}

/** Runs one brief: a workspace of its own, a session with its setup, then its message as one turn of the real loop. */
export const replayBrief = Effect.fn("Bench.replay")(function* (brief: Brief) {
  const [elapsed, run] = yield* Effect.timed(Effect.gen(function* () {
    const luna = yield* Luna
    const model = yield* ReplayModel
    const who = yield* benchOwner(brief.id, brief.setup.plan ?? "paid")
    const session = yield* luna.create(who, {
      title: brief.title,
      ...(brief.setup.stage === undefined ? {} : { stage: brief.setup.stage })
    })
    const setup = yield* Effect.either(applySetup(who, session.id, brief.setup))
    if (Either.isLeft(setup)) {
      const meters = metersOf({
        brief,
        events: [],
        calls: [],
        stage: session.stage,
        scripted: model.scripted,
        setupProblem: setup.left.message
      })
      return { brief, meters, calls: [], bindings: new Map(), events: [], sessionId: session.id, turnMillis: 0 }
    }
    yield* model.begin(brief, setup.right)
    const [turn, events] = yield* Effect.timed(Stream.runCollect(luna.turn(who, session.id, brief.message)))
    const view = yield* luna.view(who, session.id)
    const calls = yield* model.calls
    const all = Chunk.toReadonlyArray(events)
    const meters = metersOf({ brief, events: all, calls, stage: view.stage, scripted: model.scripted, setupProblem: null })
    return { brief, meters, calls, bindings: setup.right, events: all, sessionId: session.id, turnMillis: Duration.toMillis(turn) }
  }))
  return { ...run, millis: Duration.toMillis(elapsed) } satisfies BriefRun
})

/** Runs the briefs one after another; the report holds no time and no id of the run. */
export const runBriefs = Effect.fn("Bench.run")(function* (briefs: ReadonlyArray<Brief>) {
  const [elapsed, runs] = yield* Effect.timed(Effect.forEach(briefs, replayBrief))
  const meters = runs.map((run) => run.meters)
  const report: BenchReport = { briefs: meters, totals: totalsOf(meters) }
  return { report, runs, millis: Duration.toMillis(elapsed) }
})

/**
 * A live run written as a replay: the brief's setup and expectations with the replies the model gave,
 * the ids the run made quoted as placeholders (a replay makes them anew).
 */
export const recordedBrief = (run: BriefRun): Brief => ({
  ...run.brief,
  replies: run.calls.flatMap((call) =>
    call.reply === null ? [] : [unfillReply(call.reply, new Map([...run.bindings, ...resultBindings(call.request.messages)]))]
  )
})
