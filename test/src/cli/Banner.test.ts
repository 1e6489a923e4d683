import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { demoBanner } from "../../../src/cli/Serve.ts"

describe("the first start's banner", () => {
  it("holds an export line that, pasted into a shell, sets BREIN_API_KEY, and a curl line that uses it", () => {
    const key = "brein_sk_Abc-123_xyz"
    const banner = demoBanner(key, 9999)
    const exportLine = banner.split("\n").map((line) => line.trim()).find((line) => line.startsWith("export "))
    assert.isDefined(exportLine)
    const pasted = execFileSync("bash", ["-c", `${exportLine}; printf %s "$BREIN_API_KEY"`], { encoding: "utf8", env: {} })
    assert.strictEqual(pasted, key)
    assert.include(banner, `-H "Authorization: Bearer $BREIN_API_KEY"`)
    assert.include(banner, "http://localhost:9999/api/v1/tools/core.timestamp.now/execute")
  })
})
