import { HttpApiBuilder } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { AuditUnavailable } from "../../schema/Errors.ts"
import { BreinApi } from "../../schema/http/Api.ts"

export const HealthLive = HttpApiBuilder.group(
  BreinApi,
  "health",
  (handlers) =>
    Effect.map(SqlClient.SqlClient, (sql) =>
      handlers.handle("health", () =>
        sql`SELECT 1`.pipe(
          Effect.as({ status: "ok" as const, database: "ok" as const }),
          Effect.mapError(() => new AuditUnavailable({ message: "the database does not answer" }))
        )))
)
