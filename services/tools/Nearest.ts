// `employeesMin`, `Employees-Min` and `employees_min` are one name; so are `companies.search` and `companies_search`
const folded = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, "")

/** Names longer than this are not matched: a name is short, and a long one sent on purpose costs nothing to refuse. */
const MAX_MATCHED = 100

/** Edits (insert, delete, replace, swap two neighbours) from `a` to `b`, or `most + 1` as soon as it is more than `most`. */
const distance = (a: string, b: string, most: number): number => {
  if (Math.abs(a.length - b.length) > most) return most + 1
  let before: Array<number> = []
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    let least = i
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let d = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2]! + 1)
      row.push(d)
      least = Math.min(least, d)
    }
    if (least > most) return most + 1
    before = previous
    previous = row
  }
  return previous[b.length]!
}

const one = (names: ReadonlyArray<string>) => (names.length === 1 ? names[0] : undefined)

/**
 * The one name of `names` that `name` most likely meant: the same name written in another case or
 * style, else a slip of a letter or two (one for a name of four letters or fewer), else a shortening
 * or a lengthening of it. Where two names are as near, it answers none: a wrong guess misleads more
 * than no guess.
 */
export const nearestName = (name: string, names: ReadonlyArray<string>): string | undefined => {
  const k = folded(name)
  if (k === "" || name.length > MAX_MATCHED) return undefined
  const same = names.filter((n) => folded(n) === k)
  if (same.length > 0) return one(same)
  const most = k.length <= 4 ? 1 : 2
  const scored = names.map((n) => ({ n, d: distance(k, folded(n), most) })).filter((s) => s.d <= most)
  if (scored.length > 0) {
    const best = Math.min(...scored.map((s) => s.d))
    return one(scored.filter((s) => s.d === best).map((s) => s.n))
  }
  return one(names.filter((n) => folded(n).startsWith(k) || k.startsWith(folded(n))))
}
