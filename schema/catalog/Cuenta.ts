import { Schema } from "effect"
import { ReadsUsage, Usage } from "../budget/Budget.ts"
import { Plan } from "../tools/Definition.ts"

export const UsageInput = Schema.Struct({
  recent: Schema.optional(Schema.Int.pipe(Schema.between(0, 50))).annotations({
    description: "How many of the latest ledger entries to include (0–50, default 10)"
  })
})
export const UsageOutput = Usage

export const AccountInput = Schema.Struct({})

export const ConnectedConnector = Schema.Struct({
  connector: Schema.String,
  connections: Schema.Int,
  states: Schema.Record({ key: Schema.String, value: Schema.Int }).annotations({ description: "How many connections are in each state" })
})

export const AccountOutput = Schema.Struct({
  ref: Schema.String,
  workspace: Schema.Struct({ id: Schema.String, name: Schema.String, plan: Plan }),
  limits: Schema.Struct({
    reads_per_hour: Schema.Int,
    opening_credits: Schema.Int.annotations({ description: "The credits a new workspace on this plan starts with" }),
    quote_minutes: Schema.Int.annotations({ description: "How long a quote can be executed" })
  }),
  credits_balance: Schema.Int,
  reads: ReadsUsage,
  connectors: Schema.Array(ConnectedConnector)
}).annotations({ identifier: "Account" })
