import { HttpApiMiddleware, HttpApiSecurity } from "@effect/platform"
import { Context, Schema } from "effect"
import { RateLimited, Unauthorized } from "../Errors.ts"
import type { Principal } from "../Principal.ts"

export class CurrentPrincipal extends Context.Tag("brein/http/CurrentPrincipal")<CurrentPrincipal, Principal>() {}

export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("brein/http/Authentication", {
  failure: Schema.Union(Unauthorized, RateLimited),
  provides: CurrentPrincipal,
  security: {
    bearer: HttpApiSecurity.bearer
  }
}) {}
