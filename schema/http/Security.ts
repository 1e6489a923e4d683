import { HttpApiMiddleware, HttpApiSecurity } from "@effect/platform"
import { Context } from "effect"
import { Unauthorized } from "../Errors.ts"
import type { Principal } from "../Principal.ts"

export class CurrentPrincipal extends Context.Tag("brein/http/CurrentPrincipal")<CurrentPrincipal, Principal>() {}

export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("brein/http/Authentication", {
  failure: Unauthorized,
  provides: CurrentPrincipal,
  security: {
    bearer: HttpApiSecurity.bearer
  }
}) {}
