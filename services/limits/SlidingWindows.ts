/** At most `limit` events in any `windowMs` milliseconds. */
export interface Limit {
  readonly limit: number
  readonly windowMs: number
}

interface Counts {
  start: number
  previous: number
  current: number
}

// Floating-point slack in the weighted count, so an answer's own wait is always enough.
const SLACK = 1e-9

/**
 * Sliding-window counters kept in memory, one per key, for at most `capacity` keys (the least
 * recently counted key is forgotten first). The window is estimated from two fixed buckets, the
 * previous one weighted by the share of it the window still covers: constant time, three numbers per
 * key, no timer. @effect/experimental's RateLimiter offers fixed windows and token buckets only, and
 * its memory store never forgets a key, so a flood of distinct addresses would grow it without bound.
 */
export class SlidingWindows {
  readonly #entries = new Map<string, Counts>()

  constructor(
    readonly limit: Limit,
    readonly capacity: number
  ) {}

  get size() {
    return this.#entries.size
  }

  /** Milliseconds until one more event fits under the limit; 0 when it fits now. */
  wait(key: string, now: number): number {
    const counts = this.#counts(key, now)
    return counts === undefined ? 0 : this.#wait(counts, now)
  }

  /** Counts one event. */
  add(key: string, now: number): void {
    const counts = this.#counts(key, now) ?? { start: this.#bucket(now), previous: 0, current: 0 }
    counts.current += 1
    this.#touch(key, counts)
  }

  /** Counts one event if it fits; otherwise counts nothing and answers the milliseconds until it would fit. */
  take(key: string, now: number): number {
    const counts = this.#counts(key, now)
    const wait = counts === undefined ? 0 : this.#wait(counts, now)
    if (wait === 0) this.add(key, now)
    return wait
  }

  #bucket(now: number) {
    return now - (now % this.limit.windowMs)
  }

  #counts(key: string, now: number): Counts | undefined {
    const counts = this.#entries.get(key)
    if (counts === undefined) return undefined
    const start = this.#bucket(now)
    if (counts.start !== start) {
      counts.previous = start - counts.start === this.limit.windowMs ? counts.current : 0
      counts.current = 0
      counts.start = start
    }
    return counts
  }

  #wait(counts: Counts, now: number): number {
    const { limit, windowMs } = this.limit
    const room = limit - 1 - counts.current
    if (counts.previous * (1 - (now - counts.start) / windowMs) <= room + SLACK) return 0
    // the previous bucket has to slide out far enough; when the current one alone is full, into the next bucket
    const until = room >= 0
      ? counts.start + windowMs * (1 - room / counts.previous)
      : counts.start + windowMs * (2 - (limit - 1) / counts.current)
    return Math.max(1, Math.ceil(until - now))
  }

  #touch(key: string, counts: Counts) {
    this.#entries.delete(key)
    if (this.#entries.size >= this.capacity) this.#entries.delete(this.#entries.keys().next().value ?? "")
    this.#entries.set(key, counts)
  }
}
