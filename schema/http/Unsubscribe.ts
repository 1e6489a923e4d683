import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { UnsubscribeLinkUnknown, UnsubscribeUnavailable } from "../Errors.ts"
import { UNAVAILABLE_PAGE, UNKNOWN_LINK_PAGE } from "./UnsubscribePages.ts"

/** Where a recipient's unsubscribe link points; every message of a sequence carries one (`{{unsubscribe}}`). */
export const UNSUBSCRIBE_PREFIX = "/u/"

export const UnsubscribePath = Schema.Struct({
  sequence: Schema.String.annotations({ description: "The sequence the message belongs to" }),
  person: Schema.String.annotations({ description: "The recipient" }),
  token: Schema.String.annotations({ description: "The link's proof: made by this server for that sequence and person" })
})

/** RFC 8058's one field: a POST without it unsubscribes nobody. */
const OneClick = Schema.Struct({ "List-Unsubscribe": Schema.Literal("One-Click") })

/**
 * The page's button, or a provider's one-click POST (RFC 8058: `List-Unsubscribe=One-Click`); both are forms,
 * URL-encoded or multipart (RFC 8058 allows either).
 */
export const UnsubscribeForm = Schema.Union(
  OneClick.pipe(HttpApiSchema.withEncoding({ kind: "UrlParams" })),
  HttpApiSchema.Multipart(OneClick)
)

export const HTML = "text/html; charset=utf-8"

export const Html = HttpApiSchema.Text({ contentType: HTML })

/**
 * A typed error as the recipient sees it: a page in their language, not the JSON error an API client
 * reads (the handler fails with the typed error; this is how the endpoint writes it). Each page error is
 * a class of its own: the API encodes an error by its class, for every route at once.
 */
const asPage = <E>(error: Schema.Schema<E>, make: () => E, html: string, status: number, description: string) =>
  HttpApiSchema.withEncoding(
    Schema.transform(Schema.String, error, { strict: true, decode: make, encode: () => html }),
    { kind: "Text", contentType: HTML }
  ).annotations(HttpApiSchema.annotations({ status, description }))

export const UnsubscribeLinkUnknownPage = asPage(
  Schema.typeSchema(UnsubscribeLinkUnknown),
  UnsubscribeLinkUnknown.of,
  UNKNOWN_LINK_PAGE,
  404,
  "UnsubscribeLinkUnknown: a page saying the link is not valid and nothing was changed"
)

/** The unsubscribe could not be committed; `AuditUnavailable` would be written as JSON, as on every other route. */
export const UnsubscribeUnavailablePage = asPage(
  Schema.typeSchema(UnsubscribeUnavailable),
  UnsubscribeUnavailable.of,
  UNAVAILABLE_PAGE,
  503,
  "UnsubscribeUnavailable: a page saying nothing was changed and to open the link again in a few minutes"
)

export class UnsubscribeGroup extends HttpApiGroup.make("unsubscribe")
  .add(
    HttpApiEndpoint.get("page", "/u/:sequence/:person/:token")
      .setPath(UnsubscribePath)
      .addSuccess(Html)
      .addError(UnsubscribeLinkUnknownPage)
      .annotate(
        OpenApi.Summary,
        "A recipient's unsubscribe page: asks them to confirm with one button; opening it changes nothing (mail scanners open links)"
      )
  )
  .add(
    HttpApiEndpoint.post("unsubscribe", "/u/:sequence/:person/:token")
      .setPath(UnsubscribePath)
      .setPayload(UnsubscribeForm)
      .addSuccess(Html)
      .addError(UnsubscribeLinkUnknownPage)
      .addError(UnsubscribeUnavailablePage)
      .annotate(
        OpenApi.Summary,
        "Unsubscribe (the page's button, or one-click per RFC 8058): the recipient's enrollment stops and their address is suppressed for the workspace"
      )
  )
{}
