import { Effect, Layer, Schema } from "effect"
import type { Principal } from "../../../../schema/Principal.ts"
import { Executor } from "../../../../services/pipeline/Executor.ts"
import { refused } from "../../../support/Refused.ts"
import { callContext, issuePrincipal, ServicesTest } from "../../../support/TestLayers.ts"
import { insertMercado } from "./Fixtures.ts"

/** The program's services over a fresh database holding the fixture data set. */
export const MercadoTest = Layer.effectDiscard(insertMercado).pipe(Layer.provideMerge(ServicesTest))

export const call = (principal: Principal, toolId: string, input: unknown) =>
  Effect.flatMap(Executor, (executor) => executor.call(toolId, input, callContext(principal, { surface: "http" })))

export const callAs = <A, I>(schema: Schema.Schema<A, I>, principal: Principal, toolId: string, input: unknown) =>
  Effect.map(call(principal, toolId, input), (response) => ({ ...response, page: Schema.decodeUnknownSync(schema)(response.data) }))

export const failure = (principal: Principal, toolId: string, input: unknown) =>
  Effect.map(refused(call(principal, toolId, input), toolId), (error) => ({
    error,
    tag: error._tag,
    paths: error._tag === "InvalidInput" ? error.issues.map((i) => i.path) : [],
    message: error.message
  }))

export const principalOf = Effect.suspend(() => Effect.map(issuePrincipal("free"), (issued) => issued.principal))
