import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { bodyOptional, EmptyBody } from "../Body.ts"
import { ConnectionNotFound, ConnectionView, CreateConnection, UpdateCredentials } from "../connections/Connection.ts"
import { SyncJobView } from "../connections/SyncJob.ts"
import { AuditUnavailable, Forbidden, InvalidInput, ServiceUnavailable } from "../Errors.ts"
import { QueryInteger } from "./QueryInteger.ts"
import { Authentication } from "./Security.ts"

const IdParam = Schema.Struct({ id: Schema.String })

export class ConnectionsGroup extends HttpApiGroup.make("connections")
  .add(
    HttpApiEndpoint.post("create", "/api/v1/connections")
      .setPayload(CreateConnection)
      .addSuccess(ConnectionView, { status: 201 })
      .addError(Forbidden)
      .addError(InvalidInput)
      .addError(AuditUnavailable)
      .addError(ServiceUnavailable)
      .annotate(
        OpenApi.Summary,
        "Connect an SII or bank login (credentials are encrypted at rest and never returned); audited without the secret"
      )
  )
  .add(
    HttpApiEndpoint.get("list", "/api/v1/connections")
      .addSuccess(Schema.Struct({ connections: Schema.Array(ConnectionView) }))
      .annotate(OpenApi.Summary, "The workspace's connections")
  )
  .add(
    HttpApiEndpoint.get("get", "/api/v1/connections/:id")
      .setPath(IdParam)
      .addSuccess(ConnectionView)
      .addError(ConnectionNotFound)
      .annotate(OpenApi.Summary, "State and per-scope coverage of a connection")
  )
  .add(
    HttpApiEndpoint.patch("updateCredentials", "/api/v1/connections/:id")
      .setPath(IdParam)
      .setPayload(UpdateCredentials)
      .addSuccess(ConnectionView)
      .addError(Forbidden)
      .addError(ConnectionNotFound)
      .addError(AuditUnavailable)
      .addError(ServiceUnavailable)
      .annotate(
        OpenApi.Summary,
        "Replace a connection's credentials (encrypted again; the connection goes back to pendiente; paid plan only); audited without the secret"
      )
  )
  .add(
    HttpApiEndpoint.del("remove", "/api/v1/connections/:id")
      .setPath(IdParam)
      .setPayload(EmptyBody)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(ConnectionNotFound)
      .addError(AuditUnavailable)
      .annotate(OpenApi.Summary, "Delete a connection with its cached data and jobs; audited")
      .annotate(OpenApi.Transform, bodyOptional)
  )
  .add(
    HttpApiEndpoint.get("jobs", "/api/v1/connections/:id/jobs")
      .setPath(IdParam)
      .setUrlParams(Schema.Struct({ limit: Schema.optional(QueryInteger(1, 200)) }))
      .addSuccess(Schema.Struct({ jobs: Schema.Array(SyncJobView) }))
      .addError(ConnectionNotFound)
      .annotate(OpenApi.Summary, "Sync jobs of a connection, newest first: state, attempts, progress, counts, error")
  )
  .middleware(Authentication)
{}
