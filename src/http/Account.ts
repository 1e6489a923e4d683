import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { BreinApi } from "../../schema/http/Api.ts"
import { CurrentPrincipal } from "../../schema/http/Security.ts"
import { Account } from "../../services/budget/Account.ts"

export const AccountLive = HttpApiBuilder.group(
  BreinApi,
  "account",
  (handlers) =>
    Effect.map(
      Account,
      (account) =>
        handlers.handle("usage", ({ urlParams }) =>
          Effect.flatMap(CurrentPrincipal, (principal) => account.usage(principal, urlParams.recent ?? 10)))
    )
)
