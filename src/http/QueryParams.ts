import { HttpApi } from "@effect/platform"
import { Effect, Option, SchemaAST } from "effect"
import { InvalidInput } from "../../schema/Errors.ts"
import { BreinApi } from "../../schema/http/Api.ts"
import { UNSUBSCRIBE_PREFIX } from "../../schema/http/Unsubscribe.ts"
import { MAX_ISSUES } from "../../schema/Issues.ts"
import { clip } from "../../schema/Length.ts"
import { nearestName } from "../../services/tools/Nearest.ts"
import { patternOf } from "./Refusals.ts"

/** What an issue says of a query parameter its route does not take. */
export const NOT_A_PARAMETER = "is not a query parameter this route takes"

/** Unknown parameters a hint looks for a near name of, as for a tool's fields. */
const MAX_GUESSED = 5
const MAX_KEY_SHOWN = 100
const HEALTH = "/health"

interface QueryRoute {
  readonly method: string
  readonly pattern: RegExp
  readonly names: ReadonlyArray<string>
  readonly takes: string
}

const route = (method: string, path: string, names: ReadonlyArray<string>): QueryRoute => {
  const said = `${method} ${path.replace(/:(\w+)/g, "{$1}")}`
  return {
    method,
    pattern: patternOf(path),
    names,
    takes: names.length === 0
      ? `${said} takes no query parameters.`
      : `${said} takes the query parameter${names.length === 1 ? "" : "s"} ${names.join(", ")}.`
  }
}

/**
 * Every route and the query parameters it declares (its `setUrlParams`), none where it declares none: the
 * contract's, /mcp (JSON-RPC in the body, nothing in the URL) and the OpenAPI document and docs page.
 */
const ROUTES: ReadonlyArray<QueryRoute> = (() => {
  const found = [route("POST", "/mcp", []), route("GET", "/openapi.json", []), route("GET", "/docs", [])]
  HttpApi.reflect(BreinApi, {
    onGroup: () => undefined,
    onEndpoint: ({ endpoint }) => {
      const names = Option.match(endpoint.urlParamsSchema, {
        onNone: () => [],
        onSome: (schema) => SchemaAST.getPropertySignatures(schema.ast).map((p) => String(p.name))
      })
      found.push(route(endpoint.method, endpoint.path, names))
    }
  })
  return found
})()

const shown = (key: string) => (key === "" ? "\"\"" : clip(key, MAX_KEY_SHOWN))

const refusal = (found: QueryRoute, unknown: ReadonlyArray<string>) => {
  const error = InvalidInput.of(unknown.slice(0, MAX_ISSUES).map((key) => ({ path: shown(key), message: NOT_A_PARAMETER })), unknown.length)
  const guesses = unknown.length > MAX_GUESSED ? [] : unknown.flatMap((key) => {
    const near = nearestName(key, found.names)
    return near === undefined ? [] : [`${near} (not ${shown(key)})`]
  })
  const hint = guesses.length > 0 ? `Did you mean ${guesses.join(", ")}? ${found.takes}` : found.takes
  return new InvalidInput({ message: error.message, issues: error.issues, hint })
}

/**
 * A query parameter the route does not take (`?recnet=5`, `?limt=10`, any on a route that takes none) is
 * refused by name, as a body's unknown field is, with what the route takes: read as absent, it answered a
 * default the client did not ask for. Unsubscribe links take any: they are opened from mail, whose
 * scanners and trackers may add to them, and a recipient refused there could not unsubscribe. So does
 * `/health`: a monitor may add a cache-buster (`?ts=…`), and a health check must not fail on its URL's form.
 */
export const queryParams = (method: string, url: string): Effect.Effect<void, InvalidInput> => {
  const at = url.indexOf("?")
  if (at < 0) return Effect.void
  const path = url.slice(0, at)
  if (path.startsWith(UNSUBSCRIBE_PREFIX) || path === HEALTH) return Effect.void
  const asked = method === "HEAD" ? "GET" : method
  const found = ROUTES.find((r) => r.method === asked && r.pattern.test(path))
  if (found === undefined) return Effect.void
  const unknown = new Set<string>()
  for (const key of new URLSearchParams(url.slice(at + 1)).keys()) if (!found.names.includes(key)) unknown.add(key)
  return unknown.size === 0 ? Effect.void : Effect.fail(refusal(found, [...unknown]))
}
