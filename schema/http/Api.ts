import { HttpApi, HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { closed } from "../Body.ts"
import { TopicConflict, TopicNotFound } from "../catalog/CerebroErrors.ts"
import { SequenceConflict, SequenceNotFound } from "../catalog/SequenceErrors.ts"
import { CrmRejected, CrmUnavailable } from "../crm/Errors.ts"
import {
  AuditUnavailable,
  BadRequest,
  CursorRejected,
  Forbidden,
  IdempotencyConflict,
  InsufficientCredits,
  InvalidInput,
  PayloadTooLarge,
  QuoteRefused,
  RateLimited,
  ReadCeilingReached,
  RecordNotFound,
  ServiceUnavailable,
  ToolFailed,
  ToolNotFound,
  UnsupportedMediaType
} from "../Errors.ts"
import { NOT_A_FIELD } from "../Issues.ts"
import { ToolDocument } from "../tools/Definition.ts"
import { ToolResponse } from "../tools/Response.ts"
import { IndicadorValueNotFound, UpstreamUnavailable } from "../upstream/Errors.ts"
import { AccountGroup } from "./Account.ts"
import { ConnectionsGroup } from "./Connections.ts"
import { HumansGroup, SequenceAuthorizationsGroup } from "./Humans.ts"
import { Authentication } from "./Security.ts"
import { SessionsGroup } from "./Sessions.ts"
import { UnsubscribeGroup } from "./Unsubscribe.ts"

export const ExecuteBody = closed(Schema.Struct({
  input: Schema.optionalWith(Schema.Unknown, { default: () => ({}) }).annotations({
    description: "The tool's input, as its inputSchema describes"
  })
}))

/** The path of every tool's execute endpoint. */
export const EXECUTE_PATH = /^\/api\/v1\/tools\/[^/]+\/execute$/

/**
 * The refusal of an execute body with a field beside `input` (`arguments`, `inptu`, the tool's own
 * fields sent bare) says where the tool's fields go. Its only field is `input`, which takes anything:
 * any field it refuses is one the body does not define.
 */
export const withExecuteBodyHint = (error: InvalidInput): InvalidInput =>
  error.issues.some((issue) => issue.message === NOT_A_FIELD)
    ? new InvalidInput({
      message: error.message,
      issues: error.issues,
      hint: "The body is {\"input\": {…}}: the tool's fields go inside \"input\"."
    })
    : error

export const ConnectionHeader = Schema.Struct({
  "x-connect-connection": Schema.optional(Schema.String).annotations({
    description: "The connection (conn_…) a connector tool reads from"
  })
})

export const ToolIdParam = Schema.Struct({ id: Schema.String })

export class ToolsGroup extends HttpApiGroup.make("tools")
  .add(
    HttpApiEndpoint.get("list", "/api/v1/tools")
      .addSuccess(Schema.Struct({ tools: Schema.Array(ToolDocument) }))
      .annotate(OpenApi.Summary, "Every tool callable over HTTP and MCP")
  )
  .add(
    HttpApiEndpoint.get("get", "/api/v1/tools/:id")
      .setPath(ToolIdParam)
      .addSuccess(ToolDocument)
      .addError(ToolNotFound)
      .annotate(OpenApi.Summary, "One tool's definition: plane, plan, hints, cost, scope, schemas")
  )
  .add(
    HttpApiEndpoint.post("execute", "/api/v1/tools/:id/execute")
      .setPath(ToolIdParam)
      .setPayload(ExecuteBody)
      .setHeaders(ConnectionHeader)
      .addSuccess(ToolResponse)
      .addError(ToolNotFound)
      .addError(InvalidInput)
      .addError(Forbidden)
      .addError(RateLimited)
      .addError(AuditUnavailable)
      .addError(ToolFailed)
      .addError(UpstreamUnavailable)
      .addError(IndicadorValueNotFound)
      .addError(TopicNotFound)
      .addError(TopicConflict)
      .addError(RecordNotFound)
      .addError(PayloadTooLarge)
      .addError(BadRequest)
      .addError(ServiceUnavailable)
      .addError(ReadCeilingReached)
      .addError(QuoteRefused)
      .addError(IdempotencyConflict)
      .addError(InsufficientCredits)
      .addError(CrmUnavailable)
      .addError(CrmRejected)
      .addError(SequenceNotFound)
      .addError(SequenceConflict)
      .addError(CursorRejected)
      .middleware(Authentication)
      .annotate(OpenApi.Summary, "Run a tool through the executor; every call is audited")
  )
{}

export const Health = Schema.Struct({ status: Schema.Literal("ok"), database: Schema.Literal("ok") })

export class HealthGroup extends HttpApiGroup.make("health").add(
  HttpApiEndpoint.get("health", "/health").addSuccess(Health).addError(AuditUnavailable)
) {}

export class BreinApi extends HttpApi.make("brein")
  .add(ToolsGroup)
  .add(ConnectionsGroup)
  .add(AccountGroup)
  .add(HumansGroup)
  .add(SequenceAuthorizationsGroup)
  .add(SessionsGroup)
  .add(UnsubscribeGroup)
  .add(HealthGroup)
  .addError(InvalidInput)
  .addError(PayloadTooLarge)
  .addError(UnsupportedMediaType)
  .annotate(OpenApi.Title, "brein")
  .annotate(OpenApi.Description, "A registry of tools with two planes, one audited executor, served over HTTP and MCP")
{}
