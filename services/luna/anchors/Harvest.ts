import type { CitedResult } from "../../../schema/luna/Anchors.ts"

/** The field that names a citable result, at the top of a result or on any object inside it. */
export const REF_FIELD = "ref"
/** Instructions to the model, never citable: their whole subtree is skipped wherever they appear. */
export const NON_CITABLE: ReadonlyArray<string> = ["next_actions", "warnings", "hint"]

const NUMERIC_STRING = /^-?\d+(?:\.\d+)?$/

/** The citable values of one ref, in the order the payloads hold them, and its columns. */
export interface RefValues {
  readonly values: Array<number>
  /** Numeric values at one key path across the items of one array (`items[*].amount`), keyed by that path. */
  readonly columns: Map<string, Array<number>>
}

export type Harvest = ReadonlyMap<string, RefValues>

interface Visit {
  readonly node: object
  /** Where the node is, array indices written out. */
  readonly path: string
  /** The same with the innermost array's index as `*`, or undefined outside every array. */
  readonly column: string | undefined
  readonly refs: ReadonlyArray<RefValues>
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
    const made: RefValues = { values: [], columns: new Map() }
    byRef.set(ref, made)
    return made
  }
  results.forEach((result, i) => {
    const refs = [refValues(result.ref)]
    const root = citable(result.payload)
    if (root !== undefined) record(refs, undefined, root)
    if (typeof result.payload !== "object" || result.payload === null) return
    const stack: Array<Visit> = [{ node: result.payload, path: `${i}`, column: undefined, refs }]
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
      const later: Array<Visit> = []
      for (const [key, child] of Object.entries(node)) {
        if (!inArray && (key === REF_FIELD || NON_CITABLE.includes(key))) continue
        const value = citable(child)
        if (value !== undefined) record(refs, childOf(visit, key, inArray).column, value)
        else if (typeof child === "object" && child !== null) later.push({ node: child, ...childOf(visit, key, inArray), refs })
      }
      stack.push(...later.reverse())
    }
  })
  return byRef
}
