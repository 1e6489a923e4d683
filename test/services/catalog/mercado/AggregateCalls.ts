import { Effect, Schema, TestClock } from "effect"
import type { Principal } from "../../../../schema/Principal.ts"
import { Executor } from "../../../../services/pipeline/Executor.ts"
import { refused } from "../../../support/Refused.ts"
import { SUITE_NOW } from "../../../support/SuiteClock.ts"
import { callContext, issuePrincipal } from "../../../support/TestLayers.ts"

export const call = (principal: Principal, toolId: string, input: unknown) =>
  Effect.flatMap(Executor, (executor) => executor.call(toolId, input, callContext(principal, { surface: "http" })))

export const as = <A, I>(schema: Schema.Schema<A, I>) => (response: { readonly data: unknown }) =>
  Schema.decodeUnknownSync(schema)(response.data)

export const failure = (principal: Principal, toolId: string, input: unknown) =>
  Effect.map(refused(call(principal, toolId, input), toolId), (error) => ({
    tag: error._tag,
    paths: error._tag === "InvalidInput" ? error.issues.map((i) => i.path) : [],
    kind: error._tag === "RecordNotFound" ? error.kind : undefined,
    message: error.message
  }))

/** A new workspace's principal, at the suite's date (risk end dates are compared with it). */
export const principalNow = Effect.gen(function* () {
  yield* TestClock.setTime(SUITE_NOW)
  return (yield* issuePrincipal("paid")).principal
})

/** An amount as integer cents: sums of answered amounts compared exactly. */
export const cents = (amount: number) => Math.round(amount * 100)
