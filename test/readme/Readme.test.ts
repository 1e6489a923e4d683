import { assert, describe, it } from "@effect/vitest"
import { readFileSync } from "node:fs"

const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8")
const example = readFileSync(new URL("./example.mjs", import.meta.url), "utf8")

// test/library/Package.test.ts installs the packed tarball and type-checks and runs this same file with node.
describe("README", () => {
  it("shows the library example exactly as it is tested", () => {
    assert.isTrue(readme.includes("```js\n" + example.trim() + "\n```"), "README.md must contain test/readme/example.mjs verbatim")
  })
})
