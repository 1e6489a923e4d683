import type { CitedResult } from "../../../schema/luna/Anchors.ts"

/** The field that names a citable result, at the top of a result or on any object inside it. */
export const REF_FIELD = "ref"
/** Instructions to the model, never citable: their whole subtree is skipped wherever they appear. */
export const NON_CITABLE: ReadonlyArray<string> = ["next_actions", "warnings", "hint"]

const NUMERIC_STRING = /^-?\d+(?:\.\d+)?$/

/** Sibling pairs are formed only in objects with at most this many numeric fields (a record, not a table). */
export const MAX_SIBLINGS = 16

/** A part of a whole, both from one ref: what a percentage of that ref may be computed from. */
export type PartOfWhole = readonly [part: number, whole: number]

/** The citable values of one ref, in the order the payloads hold them, and its columns. */
export interface RefValues {
  readonly values: Array<number>
  /** Numeric values at one key path across the items of one array (`items[*].amount`), keyed by that path. */
  readonly columns: Map<string, Array<number>>
  /**
   * Pairs that stand as part and whole: two numeric fields of one object (`respondidos` of `enviados`), or a
   * field and the field of the same name on an enclosing object (`groups[0].total` of `total`); the part
   * never above the whole, neither negative. An item over its column's sum is one too, formed from `columns`.
   */
  readonly parts: Array<PartOfWhole>
}

export type Harvest = ReadonlyMap<string, RefValues>

interface Visit {
  readonly node: object
  /** Where the node is, array indices written out. */
  readonly path: string
  /** The same with the innermost array's index as `*`, or undefined outside every array. */
  readonly column: string | undefined
  readonly refs: ReadonlyArray<RefValues>
  /** The numeric fields of the enclosing objects, innermost first. */
  readonly outer: Scope | undefined
}

interface Scope {
  readonly fields: ReadonlyArray<readonly [string, number]>
  readonly refs: ReadonlyArray<RefValues>
  readonly parent: Scope | undefined
}

/** The nearest enclosing field of that name, and the refs it counts in. */
const enclosing = (
  scope: Scope | undefined,
  key: string
): { readonly value: number; readonly refs: ReadonlyArray<RefValues> } | undefined => {
  for (let at = scope; at !== undefined; at = at.parent) {
    for (const [name, value] of at.fields) if (name === key) return { value, refs: at.refs }
  }
  return undefined
}

const citable = (node: unknown): number | undefined => {
  if (typeof node === "number") return Number.isFinite(node) ? node : undefined
  if (typeof node === "string" && node.length > 0 && NUMERIC_STRING.test(node)) return Number(node)
  return undefined
}

const record = (refs: ReadonlyArray<RefValues>, column: string | undefined, value: number) => {
  for (const ref of refs) {
    ref.values.push(value)
    if (column === undefined) continue
    const values = ref.columns.get(column)
    if (values === undefined) ref.columns.set(column, [value])
    else values.push(value)
  }
}

const isPart = (part: number, whole: number) => part >= 0 && whole > 0 && part <= whole

const recordParts = (refs: ReadonlyArray<RefValues>, fields: ReadonlyArray<number>) => {
  if (fields.length > MAX_SIBLINGS) return
  for (let i = 0; i < fields.length; i++) {
    for (let j = i + 1; j < fields.length; j++) {
      const [x = 0, y = 0] = [fields[i], fields[j]]
      const pair: PartOfWhole = x <= y ? [x, y] : [y, x]
      if (isPart(...pair)) { for (const ref of refs) ref.parts.push(pair) }
    }
  }
}

const childOf = (parent: Visit, key: string, inArray: boolean) => ({
  path: inArray ? `${parent.path}[${key}]` : `${parent.path}.${key}`,
  column: inArray ? `${parent.path}[*]` : parent.column === undefined ? undefined : `${parent.column}.${key}`
})

/** Every citable value of the results, per ref: numbers, numeric strings and the length of every array. */
export const harvest = (results: ReadonlyArray<CitedResult>): Harvest => {
  const byRef = new Map<string, RefValues>()
  const refValues = (ref: string) => {
    const found = byRef.get(ref)
    if (found !== undefined) return found
    const made: RefValues = { values: [], columns: new Map(), parts: [] }
    byRef.set(ref, made)
    return made
  }
  results.forEach((result, i) => {
    const refs = [refValues(result.ref)]
    const root = citable(result.payload)
    if (root !== undefined) record(refs, undefined, root)
    if (typeof result.payload !== "object" || result.payload === null) return
    const stack: Array<Visit> = [{ node: result.payload, path: `${i}`, column: undefined, refs, outer: undefined }]
    for (let visit = stack.pop(); visit !== undefined; visit = stack.pop()) {
      const { node } = visit
      const inArray = Array.isArray(node)
      let refs = visit.refs
      if (inArray) {
        record(refs, visit.column === undefined ? undefined : `${visit.column}#length`, node.length)
      } else {
        const own = REF_FIELD in node ? node[REF_FIELD] : undefined
        const nested = typeof own === "string" ? refValues(own) : undefined
        if (nested !== undefined && !refs.includes(nested)) refs = [...refs, nested]
      }
      const fields: Array<readonly [string, number]> = []
      const later: Array<readonly [string, object]> = []
      for (const [key, child] of Object.entries(node)) {
        if (!inArray && (key === REF_FIELD || NON_CITABLE.includes(key))) continue
        const value = citable(child)
        if (value !== undefined) {
          record(refs, childOf(visit, key, inArray).column, value)
          if (!inArray) fields.push([key, value])
        } else if (typeof child === "object" && child !== null) {
          later.push([key, child])
          if (!inArray && Array.isArray(child)) fields.push([`${key}#length`, child.length])
        }
      }
      let outer = visit.outer
      if (!inArray && fields.length > 0) {
        recordParts(refs, fields.map(([, value]) => value))
        for (const [key, value] of fields) {
          const whole = enclosing(outer, key)
          if (whole !== undefined && isPart(value, whole.value)) { for (const ref of whole.refs) ref.parts.push([value, whole.value]) }
        }
        outer = { fields, refs, parent: outer }
      }
      for (const [key, child] of later.reverse()) stack.push({ node: child, ...childOf(visit, key, inArray), refs, outer })
    }
  })
  return byRef
}
