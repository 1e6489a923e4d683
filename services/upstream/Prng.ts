export const hashSeed = (text: string): number => {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  return h >>> 0
}

const mulberry32 = (seed: number) => {
  let state = seed >>> 0
  return (): number => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export type NonEmpty<A> = readonly [A, ...ReadonlyArray<A>]

const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

export interface Prng {
  readonly next: () => number
  readonly int: (min: number, max: number) => number
  readonly chance: (p: number) => boolean
  readonly pick: <A>(items: NonEmpty<A>) => A
  readonly pickMaybe: <A>(items: ReadonlyArray<A>) => A | undefined
  readonly weighted: <A>(table: NonEmpty<readonly [A, number]>) => A
  readonly normal: () => number
  readonly logNormal: (median: number, sigma: number) => number
  readonly id: (prefix: string, length: number) => string
  readonly digits: (length: number) => string
}

export const makePrng = (seed: string): Prng => {
  const next = mulberry32(hashSeed(seed))
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1))
  const pick = <A>(items: NonEmpty<A>): A => items[Math.min(items.length - 1, Math.floor(next() * items.length))] ?? items[0]
  const weighted = <A>(table: NonEmpty<readonly [A, number]>): A => {
    const total = table.reduce((sum, [, w]) => sum + w, 0)
    let roll = next() * total
    for (const [value, weight] of table) {
      roll -= weight
      if (roll < 0) return value
    }
    return table[table.length - 1]?.[0] ?? table[0][0]
  }
  const normal = () => {
    const u = 1 - next()
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * next())
  }
  return {
    next,
    int,
    chance: (p) => next() < p,
    pick,
    pickMaybe: (items) => items[Math.min(items.length - 1, Math.floor(next() * items.length))],
    weighted,
    normal,
    logNormal: (median, sigma) => median * Math.exp(sigma * normal()),
    id: (prefix, length) => prefix + Array.from({ length }, () => alphabet[int(0, alphabet.length - 1)]).join(""),
    digits: (length) => String(int(1, 9)) + Array.from({ length: length - 1 }, () => String(int(0, 9))).join("")
  }
}
