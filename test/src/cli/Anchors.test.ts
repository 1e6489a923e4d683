import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { assert, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { AnchorsReport } from "../../../schema/luna/Anchors.ts"
import { all, search } from "../../services/luna/Results.ts"
import { runBrein } from "./Brein.ts"

/** `brein anchors check FILE` on a file holding `content`, in a folder of its own. */
const check = (content: string, name = "input.json") =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const dir = yield* fs.makeTempDirectoryScoped({ prefix: "brein-anchors-" })
    const file = `${dir}/${name}`
    if (content !== "") yield* fs.writeFileString(file, content)
    return { file, run: yield* runBrein({}, "anchors", "check", file) }
  }).pipe(Effect.scoped)

const reportOf = Schema.decodeUnknownSync(Schema.parseJson(AnchorsReport))

layer(NodeContext.layer, { timeout: "60 seconds" })("brein anchors check", (it) => {
  it.effect("prints the report as indented JSON and exits 0 when every figure is anchored", () =>
    Effect.gen(function* () {
      const narration = `Encontré 1.284 empresas [[ref:${search.ref}]]; las tres primeras suman 200 empleados [[ref:${search.ref}]].`
      const { run } = yield* check(JSON.stringify({ narration, results: all }))
      assert.strictEqual(run.exitCode, 0, run.stderr)
      assert.include(run.stdout, `{\n  "ok": true,`)
      const report = reportOf(run.stdout)
      assert.deepStrictEqual(report.anchors.map((a) => [a.figure, a.value, a.via]), [["1.284", 1284, "value"], ["200", 200, "sum"]])
    }))

  it.effect("exits 1 with the unanchored figures and unresolved refs when it is not", () =>
    Effect.gen(function* () {
      const narration = `Quedan 8800 [[ref:${search.ref}]]. Hay 4 más [[ref:ghost]].`
      const { run } = yield* check(JSON.stringify({ narration, results: all }))
      assert.strictEqual(run.exitCode, 1, run.stderr)
      const report = reportOf(run.stdout)
      assert.isFalse(report.ok)
      assert.deepStrictEqual(report.unresolved_refs, ["ghost"])
      assert.deepStrictEqual(report.unanchored_figures, [
        { figure: "8800", sentence: "Quedan 8800.", ref: search.ref },
        { figure: "4", sentence: "Hay 4 más.", ref: "ghost" }
      ])
    }))

  it.effect("exits 2 and names the problem for a missing file, bad JSON or a wrong shape", () =>
    Effect.gen(function* () {
      const missing = yield* check("", "absent.json")
      assert.strictEqual(missing.run.exitCode, 2)
      assert.strictEqual(missing.run.stderr.trim(), `brein: cannot read ${missing.file}: no such file`)
      const broken = yield* check(`{"narration": "Hay 3",`)
      assert.strictEqual(broken.run.exitCode, 2)
      assert.include(broken.run.stderr, `${broken.file} is not JSON`)
      const shape = yield* check(JSON.stringify({ narration: 3, results: [{ ref: 7, payload: {} }] }))
      assert.strictEqual(shape.run.exitCode, 2)
      assert.include(shape.run.stderr, "narration must be a string, got 3")
      assert.include(shape.run.stderr, "results.0.ref must be a string, got 7")
      for (const run of [missing.run, broken.run, shape.run]) assert.strictEqual(run.stdout, "")
    }))

  it.scoped("exits 2 and says so plainly when the path is a directory", () =>
    Effect.gen(function* () {
      const dir = yield* (yield* FileSystem.FileSystem).makeTempDirectoryScoped({ prefix: "brein-anchors-" })
      const run = yield* runBrein({}, "anchors", "check", dir)
      assert.strictEqual(run.exitCode, 2)
      assert.strictEqual(run.stderr.trim(), `brein: cannot read ${dir}: it is a directory, not a file`)
      assert.strictEqual(run.stdout, "")
    }))
})
