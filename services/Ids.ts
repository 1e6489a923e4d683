import { Effect } from "effect"
import { randomUUID } from "node:crypto"

/** A new id with its prefix, made now (for code that already runs inside an effect). */
export const newIdNow = <P extends string>(prefix: P) => `${prefix}_${randomUUID().replaceAll("-", "").slice(0, 20)}` as const

export const newId = <P extends string>(prefix: P) => Effect.sync(() => newIdNow(prefix))
