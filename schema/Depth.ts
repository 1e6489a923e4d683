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

// a field's name in a path is shown with its NUL characters and lone surrogates escaped, as JSON writes them
const UNSHOWABLE = /\u0000|\p{Surrogate}/gu
const escaped = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`

const pathTo = (root: string, frame: Frame) => {
  const keys: Array<string> = []
  for (let at: Frame | undefined = frame; at !== undefined; at = at.parent) keys.push(at.key)
  const path = [root, ...keys.reverse()].filter((part) => part !== "").join(".").replace(UNSHOWABLE, escaped) || "body"
  return path.length > MAX_PATH ? `${path.slice(0, MAX_PATH - 1)}…` : path
}

/** PostgreSQL's text cannot hold the NUL character: a string holding one could never be stored. */
export const NUL_MESSAGE = "must not contain the NUL character (\\u0000), which cannot be stored"

/**
 * Half of a surrogate pair without the other half (JSON's `"\\ud800"`) is no Unicode text: UTF-8 cannot encode it,
 * so the database would store U+FFFD in its place, a value other than the one sent (and digested).
 */
export const SURROGATE_MESSAGE = "must not contain a lone surrogate (\\ud800 to \\udfff without its pair), which is no Unicode text"

const LONE_SURROGATE = /\p{Surrogate}/u

/** Why a string cannot be stored as it is sent, if it cannot. */
const unstorable = (text: string): string | undefined =>
  text.includes("\u0000") ? NUL_MESSAGE : LONE_SURROGATE.test(text) ? SURROGATE_MESSAGE : undefined

/** A string a route stores: refused with a NUL character or a lone surrogate in it, which the database cannot hold. */
export const storable = <A extends string, I, R>(self: Schema.Schema<A, I, R>) =>
  self.pipe(Schema.filter((text) => unstorable(text) ?? true))

/**
 * The first point where `value` nests deeper than `limit`, or holds a string or a field's name that cannot be
 * stored (the NUL character, a lone surrogate), as an issue; undefined when it does not. Iterative (an explicit
 * stack), so no input can overflow the call stack here.
 */
export const inputIssue = (value: unknown, root: string, limit: number = MAX_DEPTH): Issue | undefined => {
  if (typeof value === "string") {
    const message = unstorable(value)
    return message === undefined ? undefined : { path: root || "body", message }
  }
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
      const message = unstorable(key) ?? (typeof child === "string" ? unstorable(child) : undefined)
      if (message !== undefined) return { path: pathTo(root, at), message }
      if (typeof child === "object" && child !== null) stack.push({ ...at, value: child })
    }
  }
  return undefined
}
