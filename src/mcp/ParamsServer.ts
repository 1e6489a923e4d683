import { type JSONRPCRequest, ProtocolError, ProtocolErrorCode, Server, type ServerContext } from "@modelcontextprotocol/server"
import { Option, Schema } from "effect"

/** What zod says of each thing wrong with a request's params, as the SDK quotes it (a JSON array). */
const ZodIssues = Schema.parseJson(Schema.NonEmptyArray(Schema.Struct({
  path: Schema.Array(Schema.Union(Schema.String, Schema.Number)),
  message: Schema.String
})))
const zodIssues = Schema.decodeUnknownOption(ZodIssues)

const MAX_SHOWN = 5

/**
 * A request whose params fail the SDK's own schema (`initialize` without `protocolVersion`, say) as the
 * spec asks, -32602 Invalid params with one line per issue: the SDK throws a plain error quoting zod's
 * issues whole, which answers -32603 Internal error with a dump of JSON (or, for tools/call, -32602 with
 * the dump).
 */
export const invalidParamsOf = (method: string, error: unknown): unknown => {
  if (!(error instanceof Error)) return error
  // the SDK's own -32602 for tools/call quotes them after its words: "Invalid tools/call request: [ … ]"
  const quoted = error instanceof ProtocolError
    ? error.code === ProtocolErrorCode.InvalidParams && error.message.includes(": [")
      ? error.message.slice(error.message.indexOf(": [") + 2)
      : undefined
    : error.message
  if (quoted === undefined) return error
  return Option.match(zodIssues(quoted), {
    onNone: () => error,
    onSome: (issues) => {
      const said = issues.slice(0, MAX_SHOWN).map((issue) =>
        `${issue.path.length === 0 ? "params" : issue.path.join(".")}: ${issue.message.replace(/^Invalid input: /, "")}`
      )
      const more = issues.length > MAX_SHOWN ? `; and ${issues.length - MAX_SHOWN} more` : ""
      return new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid params for ${method}: ${said.join("; ")}${more}`)
    }
  })
}

/** The SDK's server, its refusals of malformed params told as Invalid params (`invalidParamsOf`). */
export class ParamsServer extends Server {
  protected override _wrapHandler(
    method: string,
    handler: Parameters<Server["_wrapHandler"]>[1]
  ): ReturnType<Server["_wrapHandler"]> {
    const wrapped = super._wrapHandler(method, handler)
    return (request: JSONRPCRequest, ctx: ServerContext) =>
      wrapped(request, ctx).catch((error: unknown) => Promise.reject(invalidParamsOf(method, error)))
  }
}
