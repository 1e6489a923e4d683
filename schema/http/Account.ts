import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Usage } from "../budget/Budget.ts"
import { QueryInteger } from "./QueryInteger.ts"
import { Authentication } from "./Security.ts"

export const UsageParams = Schema.Struct({
  recent: Schema.optional(QueryInteger(0, 50)).annotations({
    description: "How many of the latest ledger entries to include (0–50, default 10)"
  })
})

export class AccountGroup extends HttpApiGroup.make("account")
  .add(
    HttpApiEndpoint.get("usage", "/api/v1/usage")
      .setUrlParams(UsageParams)
      .addSuccess(Usage)
      .annotate(OpenApi.Summary, "The workspace's credits (balance, totals, latest ledger entries) and its reads of the hour")
  )
  .middleware(Authentication)
{}
