import { Effect } from "effect"
import { randomUUID } from "node:crypto"

export const newId = <P extends string>(prefix: P) =>
  Effect.sync(() => `${prefix}_${randomUUID().replaceAll("-", "").slice(0, 20)}` as const)
