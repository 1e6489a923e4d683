import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { shellWord } from "../../../src/cli/ShellWord.ts"

describe("shellWord", () => {
  it("a shell reads each printed word back as the text it was made of, whatever it holds", () => {
    for (const text of ["acme", "big corp", "a'b", "it's 'quoted'", "ñandú s.a.", "$(touch x) `y` $HOME", "tab\there", "-n", "*"]) {
      assert.strictEqual(execFileSync("sh", ["-c", `printf %s ${shellWord(text)}`], { encoding: "utf8" }), text, text)
    }
  })

  it("a plain name is printed as it is", () => {
    assert.strictEqual(shellWord("acme-2"), "acme-2")
    assert.strictEqual(shellWord("big corp"), "'big corp'")
  })
})
