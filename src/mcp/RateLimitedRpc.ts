import { Option, Schema } from "effect"
import type { RateLimited } from "../../schema/Errors.ts"
import { type ErrorAnswer, errorAnswer } from "../http/Gate.ts"

/** JSON-RPC's range for server errors is -32000 to -32099; 429 is the HTTP status it stands for. */
export const RATE_LIMITED_CODE = -32029

const JsonRpcId = Schema.Union(Schema.String, Schema.Number)
const idOf = Schema.decodeUnknownOption(Schema.parseJson(Schema.Struct({ id: JsonRpcId })))

/**
 * A rate-limited /mcp request answered as JSON-RPC (status 429 and Retry-After kept): an error object
 * with the request's id when its body has one, and the typed error in `data`.
 */
export const rateLimitedRpc = (error: RateLimited, body: string | undefined): ErrorAnswer => {
  const answer = errorAnswer(error)
  const id = body === undefined ? null : Option.getOrNull(Option.map(idOf(body), (request) => request.id))
  return { ...answer, body: { jsonrpc: "2.0", id, error: { code: RATE_LIMITED_CODE, message: error.message, data: answer.body } } }
}
