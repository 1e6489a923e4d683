import { NodeContext } from "@effect/platform-node"
import { assert, layer } from "@effect/vitest"
import { Effect, Either, Layer } from "effect"
import { fileURLToPath } from "node:url"
import type { Brief } from "../../../schema/luna/Brief.ts"
import { readBriefs, reportJson } from "../../../services/luna/bench/BriefFiles.ts"
import { fill, unfillReply } from "../../../services/luna/bench/Placeholders.ts"
import { recordedBrief, replayBrief, runBriefs } from "../../../services/luna/bench/Replay.ts"
import { ModelGateway } from "../../../services/luna/ModelGateway.ts"
import { recordingModel } from "../../../services/luna/RecordingModel.ts"
import { ReplayModel } from "../../../services/luna/ReplayModel.ts"
import { ScriptedModel } from "../../../services/luna/ScriptedModel.ts"
import { LunaBenchTest, lunaBenchTestWith } from "../../support/LunaBench.ts"

const BRIEFS = fileURLToPath(new URL("../../../bench/briefs", import.meta.url))

const briefs = (...ids: ReadonlyArray<string>) =>
  Effect.flatMap(readBriefs(BRIEFS), (files) =>
    Effect.forEach(ids, (id) => {
      const found = files.find((f) => f.brief.id === id)
      return found === undefined ? Effect.dieMessage(`no brief ${id} in ${BRIEFS}`) : Effect.succeed(found.brief)
    }))

layer(LunaBenchTest, { timeout: "120 seconds" })("the bench harness", (it) => {
  it.effect("the repository's 14 briefs (8 cierre, 3 responder, 3 limite) meet their expectations", () =>
    Effect.gen(function* () {
      const files = yield* readBriefs(BRIEFS)
      const count = (outcome: string) => files.filter((f) => f.brief.expected.outcome === outcome).length
      assert.deepStrictEqual([files.length, count("cierre"), count("responder"), count("limite")], [14, 8, 3, 3])
      const { report } = yield* runBriefs(files.map((f) => f.brief))
      assert.deepStrictEqual(report.briefs.filter((b) => !b.ok).map((b) => [b.id, b.problems]), [])
      const t = report.totals
      assert.deepStrictEqual(
        [t.unresolved_refs, t.unanchored_figures, t.belt_violations, t.limits_with_redirect, t.repairs_taken, t.repairs_lowering_anchors],
        [0, 0, 1, 3, 1, 0]
      )
    }))

  it.effect("two runs over the same briefs write byte-identical JSON, and meet the briefs' expectations", () =>
    Effect.gen(function* () {
      const chosen = yield* briefs("comerciales-costa-azul", "logistica-valparaiso-reparada", "preflight-secuencia")
      const first = yield* runBriefs(chosen)
      const second = yield* runBriefs(chosen)
      assert.strictEqual(reportJson(first.report), reportJson(second.report))
      assert.deepStrictEqual(first.report.briefs.map((b) => b.problems), [[], [], []])
      const [belt, repaired] = first.report.briefs
      assert.strictEqual(belt?.belt_violations, 1)
      assert.strictEqual(belt?.stage, "prospectando")
      assert.strictEqual(repaired?.repair, "taken")
      assert.isFalse(repaired?.repair_lowered_anchors)
      assert.notInclude(reportJson(first.report), "ses_")
    }))

  it.effect("a replay that no longer fits its brief fails, saying how", () =>
    Effect.gen(function* () {
      const [brief] = yield* briefs("constructoras-rm")
      if (brief === undefined) return assert.fail("no brief")
      const close = brief.replies[1]
      const wrongFigure: Brief = {
        ...brief,
        replies: [brief.replies[0]!, { ...close!, content: "Hay 12 constructoras medianas [[ref:r1]]." }]
      }
      const drifted = yield* replayBrief(wrongFigure)
      assert.isFalse(drifted.meters.ok)
      assert.include(drifted.meters.problems, "the script ran out")
      const wrongOutcome = yield* replayBrief({ ...brief, expected: { ...brief.expected, outcome: "responder", belt_violations: 1 } })
      assert.deepStrictEqual(wrongOutcome.meters.problems, ["outcome cierre (expected responder)", "0 belt violations (expected 1)"])
      const unused = yield* replayBrief({ ...brief, replies: [...brief.replies, close!] })
      assert.deepStrictEqual(unused.meters.problems, ["1 recorded replies were not used"])
    }))

  it.effect("a brief whose mailbox has a bad display name fails its setup, saying why", () =>
    Effect.gen(function* () {
      const [brief] = yield* briefs("preflight-secuencia")
      const mailbox = brief?.setup.mailboxes?.[0]
      if (brief === undefined || mailbox === undefined) return assert.fail("no brief with a mailbox")
      const run = yield* replayBrief({
        ...brief,
        setup: { ...brief.setup, mailboxes: [{ ...mailbox, display_name: "Ventas\nBcc: x@y.example" }] }
      })
      assert.isFalse(run.meters.ok)
      assert.include(
        run.meters.problems.join("; "),
        "setup: mailbox 1: a mailbox's display name must not hold control characters (line breaks, tabs)"
      )
    }))

  it.effect("a limit without a redirect tool misses its brief", () =>
    Effect.gen(function* () {
      const [brief] = yield* briefs("bandeja-gmail")
      if (brief === undefined) return assert.fail("no brief")
      const limit = brief.replies[0]!.tool_calls[0]!
      const arguments_ = JSON.stringify({ ...JSON.parse(limit.arguments), redirect_tool: null })
      const run = yield* replayBrief({
        ...brief,
        replies: [{ ...brief.replies[0]!, tool_calls: [{ ...limit, arguments: arguments_ }] }],
        expected: { outcome: "limite", belt_violations: 0 }
      })
      assert.strictEqual(run.meters.limit_redirect, false)
      assert.deepStrictEqual(run.meters.problems, ["a limit without a redirect tool"])
    }))
})

/** The scripted model behind a recording wrapper: what --record does with a live model, with replies known in advance. */
const RecordingOverScript = Layer.unwrapEffect(Effect.gen(function* () {
  const scripted = yield* ScriptedModel
  const recording = yield* recordingModel({ ready: scripted.ready, complete: scripted.complete })
  const replay = ReplayModel.of({
    scripted: false,
    begin: (brief, bindings) => Effect.zipRight(recording.replay.begin(), scripted.load(brief.replies, bindings)),
    calls: recording.replay.calls
  })
  return Layer.merge(Layer.succeed(ModelGateway, recording.gateway), Layer.succeed(ReplayModel, replay))
})).pipe(Layer.provide(ScriptedModel.Default))

layer(lunaBenchTestWith(RecordingOverScript), { timeout: "120 seconds" })("recording", (it) => {
  it.effect("a recorded run writes the ids the run made back as placeholders: the recording replays as the brief did", () =>
    Effect.gen(function* () {
      const [brief] = yield* briefs("preflight-secuencia")
      if (brief === undefined) return assert.fail("no brief")
      const run = yield* replayBrief(brief)
      assert.isTrue(run.meters.ok, run.meters.problems.join("; "))
      const played = run.calls[0]?.reply?.tool_calls[0]?.arguments ?? ""
      assert.match(played, /"sq_[A-Za-z0-9]+"/)
      assert.deepStrictEqual(recordedBrief(run), brief)
    }))
})

layer(NodeContext.layer)("placeholders", (it) => {
  it.effect("fill names values of the run and leaves the tools' own template variables alone", () =>
    Effect.sync(() => {
      const bindings = new Map<string, unknown>([["r2", { data: { list_id: "li_9833546558954441", items: [{ id: "co_9" }] } }], ["m1", {
        id: "mb_7"
      }]])
      assert.deepStrictEqual(
        fill("{{r2.data.list_id}} {{r2.data.items.0.id}} {{m1.id}} {{first_name|equipo}}", bindings),
        Either.right("li_9833546558954441 co_9 mb_7 {{first_name|equipo}}")
      )
      const missing = fill("{{r3.data.list_id}}", bindings)
      assert.isTrue(Either.isLeft(missing) && missing.left.placeholder === "{{r3.data.list_id}}")
      const reply = {
        content: null,
        model: "m",
        tool_calls: [{ id: "c", tool: "list_get", arguments: `{"list_id":"li_9833546558954441","ids":["co_9"]}` }]
      }
      assert.strictEqual(unfillReply(reply, bindings).tool_calls[0]?.arguments, `{"list_id":"{{r2.data.list_id}}","ids":["co_9"]}`)
    }))
})
