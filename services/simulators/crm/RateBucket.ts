/** A token bucket per portal: `rate` requests per `windowMs`, refilled continuously (HubSpot's "ten-secondly rolling" limit). */
export interface Bucket {
  readonly tokens: number
  readonly at: number
}

export interface Taken {
  readonly allowed: boolean
  /** When refused: whole seconds until one request fits again (at least 1). */
  readonly retryAfterSeconds: number
  readonly bucket: Bucket
}

export const take = (bucket: Bucket | undefined, now: number, rate: number, windowMs: number): Taken => {
  const perMs = rate / windowMs
  const tokens = bucket === undefined ? rate : Math.min(rate, bucket.tokens + Math.max(0, now - bucket.at) * perMs)
  if (tokens >= 1) return { allowed: true, retryAfterSeconds: 0, bucket: { tokens: tokens - 1, at: now } }
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - tokens) / perMs / 1000)), bucket: { tokens, at: now } }
}
