import { readFileSync } from "node:fs"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Redacted } from "effect"
import * as Brein from "brein"
import { freshDatabase } from "../support/TestDatabase.ts"
import { Hello, program } from "./embed.ts"

const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8")
const example = readFileSync(new URL("./embed.ts", import.meta.url), "utf8")

describe("README", () => {
  it("shows the embedding example exactly as it is tested", () => {
    assert.isTrue(readme.includes(example.trim()), "README.md must contain test/readme/embed.ts verbatim")
  })

  it.scoped("runs the embedding example against PostgreSQL through brein's own layer", () =>
    Effect.gen(function* () {
      const url = yield* freshDatabase
      const config = Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["DATABASE_URL", Redacted.value(url)]])))
      const response = yield* program.pipe(Effect.provide(Brein.layer([Hello]).pipe(Layer.provide(config))))
      assert.deepStrictEqual(response.data, { greeting: "Hola, Ada" })
      assert.strictEqual(response.meta.audit_status, "recorded")
      assert.strictEqual(response.meta.plane, "action")
      const verify = yield* Effect.flatMap(Brein.AuditVerify, (a) => a.verify()).pipe(
        Effect.provide(Brein.layer([Hello]).pipe(Layer.provide(config)))
      )
      assert.strictEqual(verify.rows, 1)
    })
  )
})
