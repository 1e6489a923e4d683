import type { Issue } from "./Issues.ts"

/** How deep a value sent to brein may nest (objects and arrays); deeper input is refused before anything reads it. */
export const MAX_DEPTH = 64

const MAX_PATH = 200

interface Frame {
  readonly value: object
  readonly depth: number
  readonly key: string
  readonly parent: Frame | undefined
}

const pathTo = (root: string, frame: Frame) => {
  const keys: Array<string> = []
  for (let at: Frame | undefined = frame; at !== undefined; at = at.parent) keys.push(at.key)
  const path = [root, ...keys.reverse()].filter((part) => part !== "").join(".") || "body"
  return path.length > MAX_PATH ? `${path.slice(0, MAX_PATH - 1)}…` : path
}

/**
 * The first point where `value` nests deeper than `limit`, as an issue; undefined when it does not.
 * Iterative (an explicit stack), so no input can overflow the call stack here.
 */
export const depthIssue = (value: unknown, root: string, limit: number = MAX_DEPTH): Issue | undefined => {
  if (typeof value !== "object" || value === null) return undefined
  const stack: Array<Frame> = [{ value, depth: 1, key: "", parent: undefined }]
  for (let frame = stack.pop(); frame !== undefined; frame = stack.pop()) {
    if (frame.depth > limit) {
      return { path: pathTo(root, frame), message: `nests deeper than ${limit} levels (objects and arrays)` }
    }
    const entries = Array.isArray(frame.value) ? frame.value : Object.values(frame.value)
    const keys = Array.isArray(frame.value) ? undefined : Object.keys(frame.value)
    for (let i = 0; i < entries.length; i++) {
      const child: unknown = entries[i]
      if (typeof child === "object" && child !== null) {
        stack.push({ value: child, depth: frame.depth + 1, key: keys === undefined ? String(i) : (keys[i] ?? ""), parent: frame })
      }
    }
  }
  return undefined
}
