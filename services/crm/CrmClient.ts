import { HttpClient, HttpClientRequest, HttpClientResponse } from "@effect/platform"
import { Array as Arr, Context, Data, Duration, Effect, Option, type Redacted, Schedule, Schema } from "effect"
import { CrmRejected, CrmUnavailable } from "../../schema/crm/Errors.ts"
import {
  AssociationsReadResponse,
  BatchResponse,
  CRM_LIMITS,
  CrmObject,
  type CrmObjectType,
  ErrorBody,
  type SearchRequest,
  SearchResponse,
  type UpsertInput
} from "../../schema/crm/Hubspot.ts"

export interface CrmRetryOptions {
  /** How many 429s in a row are waited out (each as long as Retry-After says). */
  readonly rateLimitedRetries?: number
  /** A Retry-After longer than this is not waited: the caller is told when to come back instead. */
  readonly maxRetryAfter?: Duration.DurationInput
  readonly transientRetries?: number
  readonly backoff?: Duration.DurationInput
  readonly backoffCap?: Duration.DurationInput
}

/** Where the CRM is and which token opens a workspace's portal. */
export class CrmSettings extends Context.Tag("brein/crm/CrmSettings")<CrmSettings, {
  /** Root of a HubSpot-shaped API: https://api.hubapi.com, or the bundled simulator. */
  readonly baseUrl: string
  readonly tokenFor: (workspaceId: string) => Redacted.Redacted<string>
  readonly timeout?: Duration.DurationInput
  readonly retry?: CrmRetryOptions
}>() {}

/** One failed request before retries decide: what the schedules look at. */
export class CrmCallFailed extends Data.TaggedError("CrmCallFailed")<{
  readonly kind: "throttled" | "transient" | "timeout" | "rejected"
  readonly status: number
  readonly retryAfterMillis: number
  readonly category: string
  readonly detail: string
}> {}

export const CRM_TIMEOUT: Duration.DurationInput = "10 seconds"
const DEFAULT_RETRY_AFTER_SECONDS = 10
const UNAVAILABLE_RETRY_AFTER_SECONDS = 30

export const CrmRetry = {
  /** 429: wait exactly what Retry-After asks, at most `retries` times, and never longer than `maxWait` at once. */
  rateLimited: (retries = 3, maxWait: Duration.DurationInput = "30 seconds") =>
    Schedule.identity<CrmCallFailed>().pipe(
      Schedule.whileInput((error: CrmCallFailed) =>
        error.kind === "throttled" && error.retryAfterMillis <= Duration.toMillis(Duration.decode(maxWait))
      ),
      Schedule.addDelay((error) => Duration.millis(error.retryAfterMillis)),
      Schedule.intersect(Schedule.recurs(retries))
    ),
  /** 5xx and dropped connections: exponential from `base`, jittered, each wait capped at `cap`. */
  transient: (retries = 3, base: Duration.DurationInput = "200 millis", cap: Duration.DurationInput = "5 seconds") =>
    Schedule.exponential(base).pipe(
      Schedule.jittered,
      Schedule.modifyDelay((_, delay) => Duration.min(delay, Duration.decode(cap))),
      Schedule.intersect(Schedule.recurs(retries)),
      Schedule.whileInput((error: CrmCallFailed) => error.kind === "transient")
    )
}

const failed = (kind: CrmCallFailed["kind"], status: number, detail: string, category = "", retryAfterMillis = 0) =>
  new CrmCallFailed({ kind, status, detail, category, retryAfterMillis })

const retryAfterMillis = (response: HttpClientResponse.HttpClientResponse) => {
  const seconds = Number(response.headers["retry-after"])
  return (Number.isFinite(seconds) && seconds >= 0 ? seconds : DEFAULT_RETRY_AFTER_SECONDS) * 1000
}

const decodeError = Schema.decodeUnknownOption(ErrorBody)

const refusal = (response: HttpClientResponse.HttpClientResponse) =>
  Effect.flatMap(Effect.option(response.json), (json) => {
    const body = Option.flatMap(json, decodeError)
    const message = Option.match(body, { onNone: () => `HTTP ${response.status}`, onSome: (b) => b.message })
    const category = Option.match(body, { onNone: () => "", onSome: (b) => b.category ?? b.errorType ?? "" })
    if (response.status === 429) return Effect.fail(failed("throttled", 429, message, category, retryAfterMillis(response)))
    if (response.status >= 500) return Effect.fail(failed("transient", response.status, message, category))
    return Effect.fail(failed("rejected", response.status, message, category))
  })

/** A 2xx answer decoded by `schema`; anything else is a refusal the schedules classify. */
const answer = <A, I>(schema: Schema.Schema<A, I>) => (response: HttpClientResponse.HttpClientResponse) =>
  response.status < 200 || response.status >= 300
    ? refusal(response)
    : HttpClientResponse.schemaBodyJson(schema)(response).pipe(
      Effect.mapError(() => failed("rejected", response.status, "the answer is not HubSpot-shaped", "UNEXPECTED_BODY"))
    )

/** What a caller is told once the retries are spent. */
export const surfaced = (error: CrmCallFailed): CrmUnavailable | CrmRejected => {
  switch (error.kind) {
    case "throttled": {
      const seconds = Math.ceil(error.retryAfterMillis / 1000)
      return new CrmUnavailable({
        reason: "rate_limited",
        retryAfterSeconds: seconds,
        message: `the CRM is limiting this workspace's requests (${error.detail})`,
        hint: `Nothing was half-written: call again in ${seconds} s; records already saved will report unchanged.`
      })
    }
    case "transient":
    case "timeout":
      return new CrmUnavailable({
        reason: error.kind === "timeout" ? "timeout" : "unavailable",
        retryAfterSeconds: UNAVAILABLE_RETRY_AFTER_SECONDS,
        message: `the CRM did not answer (${error.kind === "timeout" ? "timed out" : `HTTP ${error.status}: ${error.detail}`})`,
        hint: `The CRM is down or slow; try again in ${UNAVAILABLE_RETRY_AFTER_SECONDS} s.`
      })
    case "rejected":
      return new CrmRejected({
        status: error.status,
        category: error.category,
        message: `the CRM refused the request: ${error.detail}`,
        hint: error.status === 401 || error.status === 403
          ? "The CRM token is missing or wrong: an operator sets CRM_TOKEN (a HubSpot private-app token) for CRM_BASE_URL."
          : "The request was refused as sent; retrying it unchanged will not help."
      })
  }
}

/**
 * HubSpot's CRM v3 objects API over HttpClient (search, batch upsert and read) and the v4 read of a contact's companies,
 * each retried by the schedules above.
 */
export class CrmClient extends Effect.Service<CrmClient>()("brein/crm/CrmClient", {
  effect: Effect.gen(function* () {
    const settings = yield* CrmSettings
    const client = (yield* HttpClient.HttpClient).pipe(
      HttpClient.mapRequest(HttpClientRequest.prependUrl(settings.baseUrl.replace(/\/+$/, ""))),
      HttpClient.mapRequest(HttpClientRequest.acceptJson)
    )
    const timeout = settings.timeout ?? CRM_TIMEOUT
    const retry = settings.retry ?? {}
    const rateLimited = CrmRetry.rateLimited(retry.rateLimitedRetries, retry.maxRetryAfter)
    const transient = CrmRetry.transient(retry.transientRetries, retry.backoff, retry.backoffCap)

    const call = <A>(
      workspaceId: string,
      request: HttpClientRequest.HttpClientRequest,
      read: (response: HttpClientResponse.HttpClientResponse) => Effect.Effect<A, CrmCallFailed>
    ) =>
      client.execute(HttpClientRequest.bearerToken(request, settings.tokenFor(workspaceId))).pipe(
        Effect.mapError((error) => failed("transient", 0, error.message)),
        Effect.flatMap(read),
        Effect.timeoutFail({ duration: timeout, onTimeout: () => failed("timeout", 0, "timed out") }),
        Effect.retry(transient),
        Effect.retry(rateLimited),
        Effect.tapError((error) =>
          Effect.logWarning("crm request failed").pipe(
            Effect.annotateLogs({ url: request.url, kind: error.kind, status: error.status, category: error.category })
          )
        ),
        Effect.mapError(surfaced)
      )

    const search = Effect.fn("CrmClient.search")(function* (workspaceId: string, type: CrmObjectType, request: SearchRequest) {
      yield* Effect.annotateCurrentSpan({ "crm.object_type": type })
      const body = HttpClientRequest.bodyUnsafeJson(HttpClientRequest.post(`/crm/v3/objects/${type}/search`), request)
      return yield* call(workspaceId, body, answer(SearchResponse))
    })

    /** Every object whose `propertyName` is one of `values`: IN filters of 100 values, each paged to its end. */
    const searchIn = Effect.fn("CrmClient.searchIn")(function* (
      workspaceId: string,
      type: CrmObjectType,
      propertyName: string,
      values: ReadonlyArray<string>,
      properties: ReadonlyArray<string>
    ) {
      const chunks = Arr.chunksOf(Arr.dedupe(values.filter((v) => v !== "")), CRM_LIMITS.inValues)
      const found: Array<CrmObject> = []
      for (const chunk of chunks) {
        let after: string | undefined = undefined
        do {
          const page: SearchResponse = yield* search(workspaceId, type, {
            filterGroups: [{ filters: [{ propertyName, operator: "IN", values: chunk }] }],
            properties,
            limit: CRM_LIMITS.pageSize,
            ...(after === undefined ? {} : { after })
          })
          found.push(...page.results)
          after = page.paging?.next.after
        } while (after !== undefined)
      }
      return found
    })

    const batchUpsert = Effect.fn("CrmClient.batchUpsert")(
      function* (workspaceId: string, type: CrmObjectType, inputs: ReadonlyArray<UpsertInput>) {
        yield* Effect.annotateCurrentSpan({ "crm.object_type": type, "crm.inputs": inputs.length })
        const body = HttpClientRequest.bodyUnsafeJson(HttpClientRequest.post(`/crm/v3/objects/${type}/batch/upsert`), { inputs })
        return yield* call(workspaceId, body, answer(BatchResponse))
      }
    )

    const get = Effect.fn("CrmClient.get")(function* (workspaceId: string, type: CrmObjectType, id: string) {
      const request = HttpClientRequest.get(`/crm/v3/objects/${type}/${encodeURIComponent(id)}`)
      return yield* call(
        workspaceId,
        request,
        (response) => response.status === 404 ? Effect.succeed(Option.none()) : Effect.map(answer(CrmObject)(response), Option.some)
      )
    })

    /** The companies each of `contactIds` is linked to (v4 batch read): a contact linked to none is absent. */
    const companiesOf = Effect.fn("CrmClient.companiesOf")(function* (workspaceId: string, contactIds: ReadonlyArray<string>) {
      const linked = new Map<string, ReadonlySet<string>>()
      for (const chunk of Arr.chunksOf(Arr.dedupe(contactIds), CRM_LIMITS.associationInputs)) {
        const request = HttpClientRequest.post("/crm/v4/associations/contacts/companies/batch/read")
        const body = HttpClientRequest.bodyUnsafeJson(request, { inputs: chunk.map((id) => ({ id })) })
        const response = yield* call(workspaceId, body, answer(AssociationsReadResponse))
        for (const result of response.results) linked.set(result.from.id, new Set(result.to.map((to) => String(to.toObjectId))))
      }
      return linked as ReadonlyMap<string, ReadonlySet<string>>
    })

    return { search, searchIn, batchUpsert, get, companiesOf }
  })
}) {}
