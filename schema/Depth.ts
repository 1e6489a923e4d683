import { Schema } from "effect"
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
  const path = [root, ...keys.reverse()].filter((part) => part !== "").join(".").replaceAll("\u0000", "\\u0000") || "body"
  return path.length > MAX_PATH ? `${path.slice(0, MAX_PATH - 1)}…` : path
}

/** PostgreSQL's text cannot hold the NUL character: a string holding one could never be stored. */
export const NUL_MESSAGE = "must not contain the NUL character (\\u0000), which cannot be stored"

const hasNul = (text: string) => text.includes("\u0000")

/** A string a route stores: refused with a NUL character in it, where the database would fail on it. */
export const withoutNul = <A extends string, I, R>(self: Schema.Schema<A, I, R>) =>
  self.pipe(Schema.filter((text) => !hasNul(text), { message: () => NUL_MESSAGE }))

/**
 * The first point where `value` nests deeper than `limit`, or holds the NUL character in a string or a
 * field's name, as an issue; undefined when it does not. Iterative (an explicit stack), so no input can
 * overflow the call stack here.
 */
export const inputIssue = (value: unknown, root: string, limit: number = MAX_DEPTH): Issue | undefined => {
  if (typeof value === "string") return hasNul(value) ? { path: root || "body", message: NUL_MESSAGE } : undefined
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
      const key = keys === undefined ? String(i) : (keys[i] ?? "")
      const at = { value: frame.value, depth: frame.depth + 1, key, parent: frame }
      if (hasNul(key) || (typeof child === "string" && hasNul(child))) return { path: pathTo(root, at), message: NUL_MESSAGE }
      if (typeof child === "object" && child !== null) stack.push({ ...at, value: child })
    }
  }
  return undefined
}
