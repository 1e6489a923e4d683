import { Effect } from "effect"
import { AccountInput, AccountOutput, UsageInput, UsageOutput } from "../../schema/catalog/Cuenta.ts"
import { pureHints } from "../../schema/connectors/Core.ts"
import { Account } from "../budget/Account.ts"
import { catalog } from "../tools/Source.ts"
import { action } from "../tools/Tool.ts"

const ALL_STAGES = ["buscando", "prospectando", "con_lista"] as const

export const usage = action({
  id: "usage",
  aggregate: true,
  family: "cuenta",
  label: "Uso y créditos",
  description:
    "The workspace's credits (balance, granted and spent totals, average charge, latest ledger entries) and its reads of the hour (used, limit, when the oldest frees). Free.",
  plan: "free",
  hints: pureHints,
  cost: { kind: "free" },
  level: 0,
  stages: ALL_STAGES,
  input: UsageInput,
  output: UsageOutput,
  handler: (input, ctx) =>
    Effect.gen(function* () {
      const account = yield* Account
      const answer = yield* account.usage(ctx.principal, input.recent ?? 10)
      if (answer.credits.balance === 0) {
        yield* ctx.annotate({ hint: "The balance is 0: tools that cost credits will only quote until an operator grants credits" })
      }
      return answer
    })
})

export const accountGet = action({
  id: "account_get",
  family: "cuenta",
  label: "Cuenta",
  description:
    "The workspace's plan, its limits (reads per hour, opening credits, quote lifetime), credits balance, hour's reads and connected connectors. Free.",
  plan: "free",
  hints: pureHints,
  cost: { kind: "free" },
  level: 0,
  stages: [],
  input: AccountInput,
  output: AccountOutput,
  handler: (_input, ctx) => Effect.flatMap(Account, (account) => account.account(ctx.principal))
})

export const CuentaCatalog = catalog({ family: "cuenta", tools: [usage, accountGet] })
