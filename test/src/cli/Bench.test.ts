import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { assert, layer } from "@effect/vitest"
import { Effect, Redacted, Schema } from "effect"
import { fileURLToPath } from "node:url"
import { inject } from "vitest"
import { BenchReport } from "../../../schema/luna/BenchMeters.ts"
import { BriefJson } from "../../../schema/luna/Brief.ts"
import { databaseEnv, runBrein, tempDataDir } from "./Brein.ts"

const BRIEFS = fileURLToPath(new URL("../../../bench/briefs", import.meta.url))
const decodeBrief = Schema.decodeUnknownSync(BriefJson)
const encodeBrief = Schema.encodeSync(BriefJson)
const decodeReport = Schema.decodeUnknownSync(Schema.parseJson(BenchReport))

/** A folder holding the repository's brief 01 and a copy of it expecting another outcome. */
const twoBriefs = Effect.gen(function* () {
  const fs = yield* FileSystem.FileSystem
  const dir = yield* fs.makeTempDirectoryScoped({ prefix: "brein-briefs-" })
  const text = yield* fs.readFileString(`${BRIEFS}/01-constructoras-rm.json`)
  yield* fs.writeFileString(`${dir}/01-constructoras-rm.json`, text)
  const brief = decodeBrief(text)
  yield* fs.writeFileString(
    `${dir}/02-otra-salida.json`,
    encodeBrief({ ...brief, id: "otra-salida", expected: { ...brief.expected, outcome: "responder" } })
  )
  return dir
})

layer(NodeContext.layer, { timeout: "120 seconds" })("brein bench", (it) => {
  it.scoped("prints a row per brief and the totals, writes the meters JSON, and exits 1 naming what a brief missed", () =>
    Effect.gen(function* () {
      const dir = yield* twoBriefs
      const env = databaseEnv(Redacted.make(inject("databaseUrl")), yield* tempDataDir)
      const json = `${dir}/meters.json`
      const run = yield* runBrein(env, "bench", "--briefs", dir, "--json", json)
      assert.strictEqual(run.exitCode, 1, run.stderr)
      assert.strictEqual(run.stderr.trim().split("\n").at(-1), "brein: 1 of 2 briefs missed their expectations")
      assert.match(run.stdout, /01-constructoras-rm +cierre +cierre .* ok\n/)
      assert.match(run.stdout, /02-otra-salida +responder +cierre .* FAIL\n/)
      assert.include(run.stdout, "02-otra-salida.json: outcome cierre (expected responder)")
      assert.match(run.stdout, /wall time: \d+\.\d\d s for 2 briefs \(goal ≤ 2 s: (met|MISSED)\)/)
      const report = decodeReport(yield* (yield* FileSystem.FileSystem).readFileString(json))
      assert.deepStrictEqual(report.briefs.map((b) => [b.id, b.ok]), [["constructoras-rm", true], ["otra-salida", false]])
      assert.deepStrictEqual([report.totals.passed, report.totals.failed], [1, 1])
    }))

  it.scoped("--record without a model configured fails with ModelNotConfigured's message, before any database is made", () =>
    Effect.gen(function* () {
      const run = yield* runBrein({ DATABASE_URL: "postgres://nobody@127.0.0.1:1/none", LUNA_MODEL_BASE_URL: "" }, "bench", "--record")
      assert.strictEqual(run.exitCode, 1)
      assert.match(
        run.stderr,
        /^brein: Luna has no model configured: set LUNA_MODEL_BASE_URL to an OpenAI-compatible chat-completions endpoint, /
      )
      assert.strictEqual(run.stdout, "")
    }))

  it.scoped("a --json path that cannot be written is a wrong command line (exit 2) before any database is made, and is left as it was", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped({ prefix: "brein-bench-json-" })
      yield* fs.writeFileString(`${dir}/file`, "kept")
      const cases = [
        [`${dir}/missing/meters.json`, `--json ${dir}/missing/meters.json: there is no folder ${dir}/missing`],
        [dir, `--json ${dir} is a directory, not a file`],
        [`${dir}/file/meters.json`, `--json ${dir}/file/meters.json: ${dir}/file is not a folder`],
        ["", "--json must name a file"],
        // root may write anywhere by access(), yet /proc takes no new file
        ["/proc/meters.json", /^--json \/proc\/meters\.json cannot be written: \/proc takes no new file \((NotFound|PermissionDenied)\)$/]
      ] as const
      for (const [json, why] of cases) {
        const run = yield* runBrein({ DATABASE_URL: "postgres://nobody@127.0.0.1:1/none" }, "bench", "--json", json)
        assert.strictEqual(run.exitCode, 2, run.stderr)
        if (typeof why === "string") assert.strictEqual(run.stderr.trim(), why)
        else assert.match(run.stderr.trim(), why)
        assert.strictEqual(run.stdout, "")
      }
      assert.deepStrictEqual((yield* fs.readDirectory(dir)).sort(), ["file"])
      assert.strictEqual(yield* fs.readFileString(`${dir}/file`), "kept")
    }))

  it.scoped("an --out folder --record cannot write in is a wrong command line (exit 2) before the model is called, and is left as it was", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped({ prefix: "brein-bench-out-" })
      yield* fs.writeFileString(`${dir}/file`, "kept")
      const cases = [
        [`${dir}/file`, `--out ${dir}/file is a file, not a folder`],
        [`${dir}/file/replays/new`, `--out ${dir}/file/replays/new: ${dir}/file is not a folder`],
        [" ", "--out must name a folder"],
        [
          "/proc/brein-replays/new",
          /^--out \/proc\/brein-replays\/new cannot be written: \/proc takes no new folder \((NotFound|PermissionDenied)\)$/
        ]
      ] as const
      for (const [out, why] of cases) {
        // a model that is there: the refusal comes before --record would call it
        const run = yield* runBrein(
          { DATABASE_URL: "postgres://nobody@127.0.0.1:1/none", LUNA_MODEL_BASE_URL: "http://127.0.0.1:1/v1", LUNA_MODEL_API_KEY: "k" },
          "bench",
          "--record",
          "--out",
          out
        )
        assert.strictEqual(run.exitCode, 2, run.stderr)
        if (typeof why === "string") assert.strictEqual(run.stderr.trim(), why)
        else assert.match(run.stderr.trim(), why)
        assert.strictEqual(run.stdout, "")
      }
      // a new folder under one that exists passes the check: the run goes on to the model (not there: exit 1)
      const fresh = yield* runBrein(
        { DATABASE_URL: "postgres://nobody@127.0.0.1:1/none", LUNA_MODEL_BASE_URL: "http://127.0.0.1:1/v1", LUNA_MODEL_API_KEY: "k" },
        "bench",
        "--record",
        "--out",
        `${dir}/replays/new`
      )
      assert.strictEqual(fresh.exitCode, 1, fresh.stderr)
      assert.notInclude(fresh.stderr, "--out")
      assert.deepStrictEqual((yield* fs.readDirectory(dir)).sort(), ["file"])
      assert.strictEqual(yield* fs.readFileString(`${dir}/file`), "kept")
    }))

  it.scoped("a folder without briefs, or a file that is not one, is refused with its name", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped({ prefix: "brein-briefs-" })
      const empty = yield* runBrein({}, "bench", "--briefs", dir)
      assert.strictEqual(empty.exitCode, 1)
      assert.strictEqual(empty.stderr.trim(), `brein: no brief files (NN-id.json) in ${dir}`)
      yield* fs.writeFileString(`${dir}/01-roto.json`, JSON.stringify({ id: "roto", title: "x" }))
      const broken = yield* runBrein({}, "bench", "--briefs", dir)
      assert.strictEqual(broken.exitCode, 1)
      assert.include(broken.stderr, "brein: 01-roto.json is not a brief: brief is missing")
    }))
})
