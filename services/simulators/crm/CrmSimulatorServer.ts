import { HttpRouter, HttpServer, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Clock, Context, Data, Effect, Layer, Option, type Redacted, Ref, Schema } from "effect"
import {
  AssociationsReadRequest,
  BatchUpsertRequest,
  CRM_LIMITS,
  CrmObjectType,
  type ErrorBody,
  type SearchRequest,
  SearchRequest as SearchRequestSchema
} from "../../../schema/crm/Hubspot.ts"
import { scaledSleep } from "../../upstream/SimulatorClock.ts"
import { CrmSimulatorStore, KNOWN_PROPERTIES } from "./CrmSimulatorStore.ts"
import { portalOfToken } from "./CrmToken.ts"
import { type Bucket, take } from "./RateBucket.ts"

export type CrmFault = Data.TaggedEnum<{
  None: {}
  /** Answer `status` (e.g. 502) to the next `times` requests. */
  Status: { readonly status: number; readonly times: number }
  /** Never answer the next `times` requests, so the client's timeout fires. */
  Hang: { readonly times: number }
  /** Answer 429 with this Retry-After to the next `times` requests, whatever the bucket holds. */
  Throttle: { readonly times: number; readonly retryAfterSeconds: number }
}>
export const CrmFault = Data.taggedEnum<CrmFault>()

export interface CrmSimulatorOptions {
  /** Signs and checks the portals' tokens (see CrmToken). */
  readonly secret: Redacted.Redacted<string>
  readonly latencyMs?: number
  readonly timeScale?: number
  /** Requests a portal may make per window before it gets 429 (HubSpot: 100 per 10 s for a private app). */
  readonly rate?: number
  readonly windowSeconds?: number
  readonly fault?: CrmFault
}

export const CRM_SIMULATOR_DEFAULTS = { latencyMs: 150, rate: 100, windowSeconds: 10 } as const

/** One request as the simulator answered it. */
export interface CrmRequestLog {
  readonly portal: string | null
  readonly method: string
  readonly path: string
  readonly status: number
}

export interface CrmSimulatorControlShape {
  readonly inject: (fault: CrmFault) => Effect.Effect<void>
  /** Every request so far, in arrival order (a hung one with status 0). */
  readonly log: Effect.Effect<ReadonlyArray<CrmRequestLog>>
}

export class CrmSimulatorControl extends Context.Tag("brein/simulators/crm/CrmSimulatorControl")<
  CrmSimulatorControl,
  CrmSimulatorControlShape
>() {}

const ObjectTypeParam = Schema.decodeUnknownOption(CrmObjectType)

const searchProblem = (type: CrmObjectType, request: SearchRequest): string | undefined => {
  if (request.filterGroups.length > CRM_LIMITS.filterGroups) return `at most ${CRM_LIMITS.filterGroups} filterGroups`
  for (const group of request.filterGroups) {
    if (group.filters.length > CRM_LIMITS.filtersPerGroup) return `at most ${CRM_LIMITS.filtersPerGroup} filters per group`
    for (const filter of group.filters) {
      if (!KNOWN_PROPERTIES[type].has(filter.propertyName)) return `Property "${filter.propertyName}" does not exist`
      if (filter.operator === "EQ" && filter.value === undefined) return "EQ needs a value"
      if (filter.operator === "IN" && (filter.values === undefined || filter.values.length === 0)) return "IN needs values"
      if (filter.operator === "IN" && (filter.values?.length ?? 0) > CRM_LIMITS.inValues) {
        return `IN takes at most ${CRM_LIMITS.inValues} values`
      }
    }
  }
  if ((request.limit ?? 10) > CRM_LIMITS.pageSize || (request.limit ?? 10) < 1) return `limit is 1 to ${CRM_LIMITS.pageSize}`
  if (request.after !== undefined && !/^\d{1,9}$/.test(request.after)) return "after is not a paging token of this search"
  return undefined
}

export const makeCrmSimulator = Effect.fn("CrmSimulatorServer.make")(function* (options: CrmSimulatorOptions) {
  const store = yield* CrmSimulatorStore
  const fault = yield* Ref.make<CrmFault>(options.fault ?? CrmFault.None())
  const log = yield* Ref.make<ReadonlyArray<CrmRequestLog>>([])
  const buckets = yield* Ref.make(new Map<string, Bucket>())
  const correlations = yield* Ref.make(0)
  const latency = scaledSleep(options.latencyMs ?? CRM_SIMULATOR_DEFAULTS.latencyMs, options.timeScale ?? 1)
  const rate = options.rate ?? CRM_SIMULATOR_DEFAULTS.rate
  const windowMs = (options.windowSeconds ?? CRM_SIMULATOR_DEFAULTS.windowSeconds) * 1000

  const takeFault = Ref.modify(fault, (current): readonly [CrmFault, CrmFault] =>
    current._tag === "None"
      ? [current, current]
      : [current, current.times <= 1 ? CrmFault.None() : { ...current, times: current.times - 1 }])

  const error = (status: number, fields: Omit<ErrorBody, "status" | "correlationId">, headers: Record<string, string> = {}) =>
    Effect.map(
      Ref.updateAndGet(correlations, (n) => n + 1),
      (n) =>
        HttpServerResponse.unsafeJson(
          { status: "error", ...fields, correlationId: `00000000-0000-4000-8000-${String(n).padStart(12, "0")}` },
          { status, headers }
        )
    )

  const throttled = (retryAfterSeconds: number) =>
    error(429, {
      message: "You have reached your ten_secondly_rolling limit.",
      errorType: "RATE_LIMIT",
      policyName: "TEN_SECONDLY_ROLLING"
    }, { "retry-after": String(retryAfterSeconds) })

  const invalid = (message: string) => error(400, { message, category: "VALIDATION_ERROR" })

  const portalOf = Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
    const header = request.headers["authorization"] ?? ""
    return header.startsWith("Bearer ") ? portalOfToken(options.secret, header.slice(7).trim()) : undefined
  })

  const admit = (portal: string) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) =>
      Ref.modify(buckets, (all): readonly [number, Map<string, Bucket>] => {
        const taken = take(all.get(portal), now, rate, windowMs)
        return [taken.allowed ? 0 : taken.retryAfterSeconds, new Map(all).set(portal, taken.bucket)]
      }))

  /** Faults, then the token, then the portal's rate, then latency: what every endpoint goes through. */
  const guarded = <E, R>(
    handler: (portal: string, type: CrmObjectType) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
  ) =>
    Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const portal = yield* portalOf
      const record = (status: number) =>
        Ref.update(log, (all) => [...all, { portal: portal ?? null, method: request.method, path: request.url, status }])
      const response = yield* Effect.gen(function* () {
        const current = yield* takeFault
        if (current._tag === "Hang") return yield* Effect.zipRight(record(0), Effect.never)
        if (current._tag === "Status") return yield* error(current.status, { message: "internal error", category: "INTERNAL_ERROR" })
        if (current._tag === "Throttle") return yield* throttled(current.retryAfterSeconds)
        if (portal === undefined) {
          return yield* error(401, {
            message: "Authentication credentials not found. This API supports OAuth 2.0 authentication and private app access tokens.",
            category: "INVALID_AUTHENTICATION"
          })
        }
        const retryAfter = yield* admit(portal)
        if (retryAfter > 0) return yield* throttled(retryAfter)
        yield* latency
        const type = ObjectTypeParam((yield* HttpRouter.params).objectType)
        if (Option.isNone(type)) return yield* error(404, { message: "Unable to infer object type", category: "OBJECT_NOT_FOUND" })
        return yield* handler(portal, type.value)
      })
      yield* record(response.status)
      return response
    })

  const search = guarded((portal, type) =>
    Effect.gen(function* () {
      const body = yield* Effect.option(HttpServerRequest.schemaBodyJson(SearchRequestSchema))
      if (Option.isNone(body)) return yield* invalid("Invalid input JSON: a search takes filterGroups, properties, limit, after")
      const problem = searchProblem(type, body.value)
      if (problem !== undefined) return yield* invalid(problem)
      const result = yield* store.search(portal, type, body.value, body.value.limit ?? 10, Number(body.value.after ?? "0"))
      return HttpServerResponse.unsafeJson(result)
    })
  )

  const upsert = guarded((portal, type) =>
    Effect.gen(function* () {
      const body = yield* Effect.option(HttpServerRequest.schemaBodyJson(BatchUpsertRequest))
      if (Option.isNone(body)) return yield* invalid("Invalid input JSON: a batch upsert takes inputs of idProperty, id, properties")
      const inputs = body.value.inputs
      if (inputs.length === 0 || inputs.length > CRM_LIMITS.batchInputs) {
        return yield* invalid(`a batch takes 1 to ${CRM_LIMITS.batchInputs} inputs, not ${inputs.length}`)
      }
      const ids = inputs.map((input) => input.id)
      const duplicates = ids.filter((id, i) => ids.indexOf(id) !== i)
      if (duplicates.length > 0) return yield* invalid(`Duplicate IDs found in batch input: [${[...new Set(duplicates)].join(", ")}]`)
      const startedAt = new Date(yield* Clock.currentTimeMillis)
      const { errors, results } = yield* store.upsert(portal, type, inputs, startedAt)
      const completedAt = new Date(yield* Clock.currentTimeMillis).toISOString()
      return HttpServerResponse.unsafeJson({
        status: "COMPLETE",
        results,
        ...(errors.length > 0 ? { numErrors: errors.length, errors } : {}),
        startedAt: startedAt.toISOString(),
        completedAt
      }, { status: errors.length > 0 ? 207 : 200 })
    })
  )

  const get = guarded((portal, type) =>
    Effect.gen(function* () {
      const { objectId } = yield* HttpRouter.params
      const query = yield* HttpServerRequest.ParsedSearchParams
      const listed = (name: string) => {
        const raw = query[name]
        return (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).flatMap((v) => v.split(",")).filter((v) => v !== "")
      }
      const associations = listed("associations").filter((name) => name === "companies")
      const found = yield* store.get(portal, type, objectId ?? "", associations)
      if (Option.isNone(found)) return yield* error(404, { message: "resource not found", category: "OBJECT_NOT_FOUND" })
      const wanted = listed("properties")
      if (wanted.length === 0) return HttpServerResponse.unsafeJson(found.value)
      const properties = Object.fromEntries([...wanted, "hs_object_id"].map((name) => [name, found.value.properties[name] ?? null]))
      return HttpServerResponse.unsafeJson({ ...found.value, properties })
    })
  )

  // v4: what each input is linked to. HubSpot answers an input linked to nothing in `errors` (207); so does this.
  const associations = guarded((portal, type) =>
    Effect.gen(function* () {
      const toType = ObjectTypeParam((yield* HttpRouter.params).toObjectType)
      if (Option.isNone(toType)) return yield* error(404, { message: "Unable to infer object type", category: "OBJECT_NOT_FOUND" })
      const body = yield* Effect.option(HttpServerRequest.schemaBodyJson(AssociationsReadRequest))
      if (Option.isNone(body)) return yield* invalid("Invalid input JSON: a batch read takes inputs of id")
      const inputs = body.value.inputs
      if (inputs.length === 0 || inputs.length > CRM_LIMITS.associationInputs) {
        return yield* invalid(`a batch read takes 1 to ${CRM_LIMITS.associationInputs} inputs, not ${inputs.length}`)
      }
      const startedAt = new Date(yield* Clock.currentTimeMillis).toISOString()
      const linked = yield* store.associated(portal, type, inputs.map((input) => input.id), toType.value)
      const results = inputs.flatMap((input) => {
        const links = linked.get(input.id)
        return links === undefined ? [] : [{
          from: { id: input.id },
          to: links.map((link) => ({
            toObjectId: Number(link.toId),
            associationTypes: [{ category: "HUBSPOT_DEFINED", typeId: link.typeId, label: link.typeId === 1 ? "Primary" : null }]
          }))
        }]
      })
      const errors = inputs.filter((input) => !linked.has(input.id)).map((input) => ({
        status: "error" as const,
        category: "OBJECT_NOT_FOUND",
        message: `No ${toType.value} is associated with ${type} ${input.id}.`,
        context: { fromObjectId: [input.id] }
      }))
      return HttpServerResponse.unsafeJson({
        status: "COMPLETE",
        results,
        ...(errors.length > 0 ? { numErrors: errors.length, errors } : {}),
        startedAt,
        completedAt: new Date(yield* Clock.currentTimeMillis).toISOString()
      }, { status: errors.length > 0 ? 207 : 200 })
    })
  )

  const router = HttpRouter.empty.pipe(
    HttpRouter.post("/crm/v3/objects/:objectType/search", search),
    HttpRouter.post("/crm/v3/objects/:objectType/batch/upsert", upsert),
    HttpRouter.get("/crm/v3/objects/:objectType/:objectId", get),
    HttpRouter.post("/crm/v4/associations/:objectType/:toObjectType/batch/read", associations)
  )

  const control = CrmSimulatorControl.of({
    inject: Effect.fn("CrmSimulatorServer.inject")(function* (next: CrmFault) {
      yield* Ref.set(fault, next)
    }),
    log: Ref.get(log)
  })
  return { router, control }
})

export const CrmSimulatorServer = {
  /**
   * Serves HubSpot's CRM v3 search, batch upsert and read for companies and contacts, and the v4 batch read of their
   * associations, on the provided HttpServer.
   */
  layer: (
    options: CrmSimulatorOptions
  ): Layer.Layer<CrmSimulatorControl, never, HttpServer.HttpServer | CrmSimulatorStore> =>
    Layer.unwrapEffect(
      Effect.map(
        makeCrmSimulator(options),
        ({ control, router }) => Layer.merge(HttpServer.serve(router), Layer.succeed(CrmSimulatorControl, control))
      )
    )
}
