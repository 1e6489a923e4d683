import { assert, describe, it } from "@effect/vitest"
import { frameInOwnWords } from "../../../src/cli/OwnWords.ts"

describe("frameInOwnWords", () => {
  it("drops @effect/cli's type sentence from a prompt's frame and keeps the frame's height, which the prompt clears", () => {
    const frame = [
      "? --workspace NAME",
      "  ",
      "    A user-defined piece of text.",
      "  ",
      "    The key's workspace",
      "  ",
      "  Use the default? › Yes"
    ]
      .join("\n")
    const framed = frameInOwnWords(frame).split("\n")
    assert.strictEqual(framed.length, 7)
    assert.deepStrictEqual(framed.slice(2), ["? --workspace NAME", "  ", "    The key's workspace", "  ", "  Use the default? › Yes"])
    assert.strictEqual(frameInOwnWords("? --plan free | paid\n  \n    The plan"), "? --plan free | paid\n  \n    The plan")
  })
})
