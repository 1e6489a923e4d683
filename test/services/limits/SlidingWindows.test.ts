import { assert, describe, it } from "@effect/vitest"
import { SlidingWindows } from "../../../services/limits/SlidingWindows.ts"

const W = 1000

/** Takes until the first refusal; answers how many were taken and the wait of the refusal. */
const fill = (windows: SlidingWindows, key: string, now: number) => {
  let taken = 0
  for (;;) {
    const wait = windows.take(key, now)
    if (wait > 0) return { taken, wait }
    taken += 1
  }
}

describe("SlidingWindows", () => {
  it("counts up to the limit, then refuses without counting, until the wait it answered has passed", () => {
    const windows = new SlidingWindows({ limit: 3, windowMs: W }, 100)
    const { taken, wait } = fill(windows, "a", 100)
    assert.strictEqual(taken, 3)
    assert.isAbove(wait, 0)
    assert.strictEqual(windows.take("a", 100 + wait - 1), wait > 1 ? 1 : 0, "one millisecond early is still refused")
    assert.strictEqual(windows.take("a", 100 + wait), 0)
    assert.isAbove(windows.take("a", 100 + wait), 0, "and the one it let through is counted")
  })

  it("slides: the previous bucket weighs by the share of it the window still covers", () => {
    const windows = new SlidingWindows({ limit: 4, windowMs: W }, 100)
    assert.strictEqual(fill(windows, "a", 900).taken, 4)
    // at 1500 the previous bucket (4 events) weighs half: 2 used, 2 free
    assert.strictEqual(fill(windows, "a", 1500).taken, 2)
    // at 2000 the window covers bucket 1000 (2 events) fully and bucket 2000 not at all
    assert.strictEqual(fill(windows, "a", 2000).taken, 2)
    // two windows later nothing is left
    assert.strictEqual(fill(windows, "a", 4000).taken, 4)
  })

  it("the wait it answers is the shortest that works, from any state", () => {
    for (const limit of [1, 2, 3, 7]) {
      for (const first of [0, 250, 999]) {
        for (const second of [1000, 1400, 1999, 2500]) {
          const windows = new SlidingWindows({ limit, windowMs: W }, 100)
          fill(windows, "k", first)
          const { wait } = fill(windows, "k", second)
          assert.isAbove(wait, 0)
          if (wait > 1) {
            assert.isAbove(windows.wait("k", second + wait - 1), 0, `limit ${limit}, ${first} then ${second}: earlier than ${wait} ms`)
          }
          assert.strictEqual(windows.wait("k", second + wait), 0, `limit ${limit}, ${first} then ${second}: after ${wait} ms`)
        }
      }
    }
  })

  it("keys are counted apart; wait and add never refuse and add always counts", () => {
    const windows = new SlidingWindows({ limit: 2, windowMs: W }, 100)
    windows.add("a", 0)
    windows.add("a", 0)
    windows.add("a", 0)
    assert.isAbove(windows.wait("a", 0), 0)
    assert.strictEqual(windows.wait("b", 0), 0)
    assert.strictEqual(windows.size, 1, "wait never stores a key")
  })

  it("holds at most `capacity` keys, forgetting the least recently counted", () => {
    const windows = new SlidingWindows({ limit: 1, windowMs: W }, 100)
    windows.add("kept", 0)
    for (let i = 0; i < 10_000; i++) {
      windows.add(`k${i}`, 0)
      if (i % 50 === 0) windows.add("kept", 0)
    }
    assert.strictEqual(windows.size, 100)
    assert.isAbove(windows.wait("kept", 0), 0, "a key counted recently is still there")
    assert.strictEqual(windows.wait("k0", 0), 0, "the oldest were forgotten")
  })
})
