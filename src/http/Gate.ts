import { HttpApiSchema } from "@effect/platform"
import { Config, Effect, Option, Schema } from "effect"
import { isUtf8 } from "node:buffer"
import type { Readable } from "node:stream"
import { inputIssue } from "../../schema/Depth.ts"
import {
  BadRequest,
  Forbidden,
  InternalError,
  InvalidInput,
  MethodNotAllowed,
  PayloadTooLarge,
  RateLimited,
  RouteNotFound,
  ServiceUnavailable,
  Unauthorized,
  UnsupportedMediaType
} from "../../schema/Errors.ts"
import { ConnectionId } from "../../schema/Ids.ts"
import { RateLimits } from "../../services/limits/RateLimits.ts"
import { Workspaces } from "../../services/workspace/Workspaces.ts"

export const MAX_BODY_BYTES = 1024 * 1024
/** A refused body is read to its end (so the client gets the 413) unless it goes on past this. */
const MAX_DRAINED_BYTES = 16 * MAX_BODY_BYTES

const GATE_ERRORS = [
  Unauthorized,
  Forbidden,
  InvalidInput,
  PayloadTooLarge,
  RateLimited,
  UnsupportedMediaType,
  BadRequest,
  RouteNotFound,
  MethodNotAllowed,
  InternalError,
  ServiceUnavailable
] as const
export const GateError = Schema.Union(...GATE_ERRORS)
export type GateError = typeof GateError.Type

const encodeGateError = Schema.encodeSync(GateError)
const statusByTag = new Map(GATE_ERRORS.map((error) => [error._tag, HttpApiSchema.getStatusErrorAST(error.ast)] as const))

export interface ErrorAnswer {
  readonly status: number
  readonly body: unknown
  readonly headers: Readonly<Record<string, string>>
}

/** The one encoding of a refused request, written by the Effect server and the MCP bridge alike. */
export const errorAnswer = (error: GateError): ErrorAnswer => ({
  status: statusByTag.get(error._tag) ?? 500,
  body: encodeGateError(error),
  headers: error._tag === "Unauthorized"
    ? { "www-authenticate": "Bearer realm=\"brein\"" }
    : error._tag === "PayloadTooLarge" ?
    { connection: "close" }
    : error._tag === "RateLimited" || error._tag === "ServiceUnavailable" ?
    { "retry-after": String(error.retryAfterSeconds) }
    : error._tag === "MethodNotAllowed" ?
    { allow: error.allowed.join(", ") }
    : {}
})

export type RequestHeaders = Readonly<Record<string, string | ReadonlyArray<string> | undefined>>

const header = (headers: RequestHeaders, name: string) => {
  const value = headers[name]
  return typeof value === "string" ? value : value?.[0]
}

export const tooLarge = new PayloadTooLarge({
  message: `the request body is larger than ${MAX_BODY_BYTES.toLocaleString("en-US")} bytes`,
  limitBytes: MAX_BODY_BYTES
})

/** RFC 6750: the scheme (any case), one space, a b64token; Node has already trimmed the header's outer whitespace. */
const BEARER = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/i

/** The one parser of `Authorization` for REST and MCP: the token, or "" when the header is missing or malformed. */
export const bearerToken = (authorization: string | undefined): string =>
  authorization === undefined || authorization.length > MAX_AUTHORIZATION ? "" : (BEARER.exec(authorization)?.[1] ?? "")
const MAX_AUTHORIZATION = 512
const JSON_TYPE = /^application\/([\w.-]+\+)?json\s*(;|$)/i
const FORM_TYPE = /^application\/x-www-form-urlencoded\s*(;|$)/i
const MULTIPART_TYPE = /^multipart\/form-data\s*;/i
/** A `charset` parameter of Content-Type (RFC 9110: a token or a quoted string, any case). */
const CHARSET = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/i
/** No content coding: `identity`, or none at all (an empty header). */
const IDENTITY = /^\s*(identity)?\s*$/i
/** Every body is read as UTF-8 (RFC 8259 for JSON); US-ASCII is UTF-8 too. */
const READ_AS_UTF8 = new Set(["utf-8", "utf8", "us-ascii"])
const foreignCharset = (type: string): string | undefined => {
  const found = CHARSET.exec(type)
  const charset = found?.[1] ?? found?.[2]
  return charset === undefined || READ_AS_UTF8.has(charset.toLowerCase()) ? undefined : charset
}

/** The bodies a route takes, and how a refusal names them. */
export interface Bodies {
  readonly types: ReadonlyArray<RegExp>
  readonly said: string
}
/** JSON everywhere; an HTML form (and RFC 8058's one-click POST, URL-encoded or multipart) where a person posts one, and nothing else there. */
export const JSON_BODIES: Bodies = { types: [JSON_TYPE], said: "JSON: send it with Content-Type: application/json" }
export const FORM_BODIES: Bodies = {
  types: [FORM_TYPE, MULTIPART_TYPE],
  said: "a form: send it with Content-Type: application/x-www-form-urlencoded or multipart/form-data (List-Unsubscribe=One-Click)"
}
const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]", "::1"])

const badKey = (error: Unauthorized) =>
  new Unauthorized({
    message: error.message,
    hint: "Send Authorization: Bearer brein_sk_…; an operator creates a key with: brein keys create --workspace NAME"
  })

const decodeConnection = Schema.decodeUnknownOption(ConnectionId)

/** Validates a connection id wherever it comes from (the X-Connect-Connection header, a `connection` argument). */
export const connectionId = (raw: unknown, path: string): Effect.Effect<ConnectionId | undefined, InvalidInput> =>
  raw === undefined
    ? Effect.succeed(undefined)
    : Option.match(decodeConnection(raw), {
      onNone: () => Effect.fail(InvalidInput.of([{ path, message: "must be a connection id like conn_…" }])),
      onSome: Effect.succeed
    })

/**
 * Input nested deeper than MAX_DEPTH, or holding the NUL character, is refused (422, with the path to the
 * point) before it is decoded or digested.
 */
export const shallow = (value: unknown, root: string): Effect.Effect<void, InvalidInput> => {
  const issue = inputIssue(value, root)
  return issue === undefined ? Effect.void : Effect.fail(InvalidInput.of([issue]))
}

/** Where the first byte that is not UTF-8 is: the offset of the sequence it breaks. */
const firstInvalidByte = (body: Buffer) => {
  for (let at = 0; at < body.length;) {
    const lead = body[at]!
    const length = lead < 0x80
      ? 1
      : lead >= 0xc2 && lead <= 0xdf
      ? 2
      : lead >= 0xe0 && lead <= 0xef
      ? 3
      : lead >= 0xf0 && lead <= 0xf4
      ? 4
      : 0
    if (length === 0 || at + length > body.length || !isUtf8(body.subarray(at, at + length))) return at
    at += length
  }
  return body.length
}

/**
 * A body whose bytes are UTF-8, as JSON must be (RFC 8259): any other byte was read as U+FFFD, so a
 * Latin-1 "Señor" was stored as "Se\uFFFDor" and the client never knew. It is refused, naming the byte.
 */
const utf8Body = (body: Buffer): Effect.Effect<Buffer, BadRequest> => {
  if (isUtf8(body)) return Effect.succeed(body)
  const at = firstInvalidByte(body)
  const byte = body[at]
  const where = byte === undefined
    ? ""
    : ` (the character at byte ${at}, which begins 0x${byte.toString(16).toUpperCase().padStart(2, "0")})`
  return Effect.fail(new BadRequest({ message: `the request body is not UTF-8${where}: send the JSON encoded as UTF-8` }))
}

/** A JSON body by its media type: application/json or any `+json` type (RFC 6839), such as application/merge-patch+json. */
export const isJsonBody = (headers: RequestHeaders) => JSON_TYPE.test(header(headers, "content-type") ?? "")

export const hasBody = (headers: RequestHeaders) =>
  header(headers, "transfer-encoding") !== undefined || Number(header(headers, "content-length") ?? "0") > 0

interface Allowed {
  readonly origins: ReadonlySet<string>
  readonly hosts: ReadonlySet<string>
}

const parseAllowed = (list: string): Allowed => {
  const entries = list.split(",").map((entry) => entry.trim().toLowerCase()).filter((entry) => entry !== "")
  const urls = entries.flatMap((entry) => {
    const url = URL.canParse(entry) && entry.includes("://")
      ? new URL(entry)
      : URL.canParse(`http://${entry}`)
      ? new URL(`http://${entry}`)
      : null
    return url === null ? [] : [{ url, bare: !entry.includes("://") }]
  })
  return {
    origins: new Set(urls.filter(({ bare }) => !bare).map(({ url }) => url.origin)),
    hosts: new Set(urls.flatMap(({ url }) => [url.hostname, url.host]))
  }
}

const hostOf = (value: string) => (URL.canParse(`http://${value}`) ? new URL(`http://${value}`) : null)

/**
 * Everything a request passes before it reaches the API or MCP: one implementation of
 * authentication, body limits, content type, origin checks and error encoding for both surfaces.
 */
export class Gate extends Effect.Service<Gate>()("brein/http/Gate", {
  effect: Effect.gen(function* () {
    const workspaces = yield* Workspaces
    const limits = yield* RateLimits
    const allowed = parseAllowed(yield* Config.string("BREIN_ALLOWED_ORIGINS").pipe(Config.withDefault("")))

    // Plain functions rather than Effect.fn: they run on every request, where a span each costs more than the check.
    const authenticate = (headers: RequestHeaders) =>
      workspaces.authenticate(bearerToken(header(headers, "authorization"))).pipe(Effect.mapError(badKey))

    /** The key of a request from `address` (the socket's peer), within the per-key and per-address limits. */
    const authenticateFrom = (address: string | undefined, headers: RequestHeaders) => limits.authenticate(address, authenticate(headers))

    /** A session lookup from `address`, within the per-session and per-address limits. */
    const sessionFrom = <A extends { readonly sessionId: string }, E>(address: string | undefined, lookup: Effect.Effect<A, E>) =>
      limits.authenticateSession(address, lookup)

    const admit = (headers: RequestHeaders, bodies: Bodies = JSON_BODIES): Effect.Effect<void, PayloadTooLarge | UnsupportedMediaType> => {
      if (Number(header(headers, "content-length") ?? "0") > MAX_BODY_BYTES) return Effect.fail(tooLarge)
      if (!hasBody(headers)) return Effect.void
      const type = header(headers, "content-type")
      if (type === undefined || !bodies.types.some((t) => t.test(type))) return Effect.fail(UnsupportedMediaType.of(type, bodies.said))
      // a compressed body would be read as its compressed bytes, and refused as "not UTF-8"
      const encoding = header(headers, "content-encoding")
      if (encoding !== undefined && !IDENTITY.test(encoding)) return Effect.fail(UnsupportedMediaType.encoding(encoding))
      const charset = foreignCharset(type)
      // Read as UTF-8 anyway, a Latin-1 "Muñoz" would be stored as "Mu\uFFFDoz": refused rather than changed.
      return charset === undefined ? Effect.void : Effect.fail(UnsupportedMediaType.charset(charset))
    }

    // DNS rebinding: a page on a foreign site must not reach a server that listens on this machine.
    const sameSite = (headers: RequestHeaders): Effect.Effect<void, Forbidden> => {
      const origin = header(headers, "origin")
      if (origin !== undefined) {
        const url = URL.canParse(origin) ? new URL(origin) : null
        if (url === null || !(LOOPBACK.has(url.hostname) || allowed.origins.has(url.origin) || allowed.hosts.has(url.host))) {
          return Effect.fail(Forbidden.origin(origin.slice(0, 200)))
        }
      }
      const host = header(headers, "host")
      if (host !== undefined) {
        const url = hostOf(host)
        if (url === null || !(LOOPBACK.has(url.hostname) || allowed.hosts.has(url.host) || allowed.hosts.has(url.hostname))) {
          return Effect.fail(Forbidden.origin(host.slice(0, 200)))
        }
      }
      return Effect.void
    }

    /**
     * The body, refused past MAX_BODY_BYTES or when it is not UTF-8 (every body the gate admits is JSON or a
     * form, text); a refused body is drained so the refusal reaches the client.
     */
    const readBody = (source: Readable) =>
      Effect.async<Buffer, PayloadTooLarge | BadRequest>((resume) => {
        const chunks: Array<Buffer> = []
        let size = 0
        let settled = false
        const settle = (outcome: Effect.Effect<Buffer, PayloadTooLarge | BadRequest>) => {
          if (settled) return
          settled = true
          resume(outcome)
        }
        source.on("data", (chunk: Buffer) => {
          size += chunk.length
          if (size <= MAX_BODY_BYTES) chunks.push(chunk)
          else if (size > MAX_DRAINED_BYTES) {
            settle(Effect.fail(tooLarge))
            source.destroy()
          }
        })
        source.once("end", () => settle(size > MAX_BODY_BYTES ? Effect.fail(tooLarge) : utf8Body(Buffer.concat(chunks, size))))
        source.once("error", () => settle(Effect.fail(new BadRequest({ message: "the request body could not be read" }))))
      })

    return {
      authenticateFrom,
      sessionFrom,
      admit,
      sameSite,
      readBody,
      connection: (headers: RequestHeaders) => connectionId(header(headers, "x-connect-connection"), "X-Connect-Connection")
    } as const
  }),
  dependencies: [RateLimits.Default]
}) {}
