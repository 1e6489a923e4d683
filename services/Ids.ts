import { randomBytes, randomUUID } from "node:crypto"
import { Effect } from "effect"

export const newId = <P extends string>(prefix: P) =>
  Effect.sync(() => `${prefix}_${randomUUID().replaceAll("-", "").slice(0, 20)}` as const)

export const newSecret = (prefix: string) => Effect.sync(() => `${prefix}${randomBytes(24).toString("base64url")}`)
