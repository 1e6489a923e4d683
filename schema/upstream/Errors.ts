import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"
import { Periodo } from "./Rcv.ts"

export const UpstreamName = Schema.Literal("sii", "banco", "indicadores")
export type UpstreamName = typeof UpstreamName.Type

export const UpstreamReason = Schema.Literal(
  "credenciales_invalidas",
  "mfa_requerido",
  "mfa_timeout",
  "sesion_en_uso",
  "upstream_no_disponible",
  "sesion_expirada",
  "limite_de_tasa",
  "sincronizacion_parcial"
).annotations({ identifier: "UpstreamReason", description: "Connection-state reason the product shows for an upstream failure" })
export type UpstreamReason = typeof UpstreamReason.Type

const fixed = <L extends UpstreamReason>(reason: L) =>
  Schema.Literal(reason).pipe(Schema.propertySignature, Schema.withConstructorDefault(() => reason))

const message = (text: string) => Schema.String.pipe(Schema.propertySignature, Schema.withConstructorDefault(() => text))

const RetryAfterSeconds = Schema.Int.pipe(Schema.nonNegative())

export class UpstreamCredentialsInvalid extends Schema.TaggedError<UpstreamCredentialsInvalid>()(
  "UpstreamCredentialsInvalid",
  {
    upstream: UpstreamName,
    reason: fixed("credenciales_invalidas"),
    message: message("the upstream rejected the stored credentials; do not retry them (another bad login may lock the user out)")
  },
  HttpApiSchema.annotations({ status: 422 })
) {}

export class UpstreamMfaRequired extends Schema.TaggedError<UpstreamMfaRequired>()(
  "UpstreamMfaRequired",
  {
    upstream: UpstreamName,
    reason: fixed("mfa_requerido"),
    message: message("the bank asks for a second factor the user must approve; retry after the user acts")
  },
  HttpApiSchema.annotations({ status: 409 })
) {}

export class UpstreamMfaTimeout extends Schema.TaggedError<UpstreamMfaTimeout>()(
  "UpstreamMfaTimeout",
  {
    upstream: UpstreamName,
    reason: fixed("mfa_timeout"),
    message: message("the second factor was not approved in time")
  },
  HttpApiSchema.annotations({ status: 504 })
) {}

export class UpstreamSessionInUse extends Schema.TaggedError<UpstreamSessionInUse>()(
  "UpstreamSessionInUse",
  {
    upstream: UpstreamName,
    reason: fixed("sesion_en_uso"),
    message: message("another session for this user is active at the upstream; retry when it ends")
  },
  HttpApiSchema.annotations({ status: 409 })
) {}

export class UpstreamUnavailable extends Schema.TaggedError<UpstreamUnavailable>()(
  "UpstreamUnavailable",
  {
    upstream: UpstreamName,
    retryAfterSeconds: RetryAfterSeconds,
    reason: fixed("upstream_no_disponible"),
    message: message("the upstream is unavailable (maintenance or outage) for the seconds retryAfterSeconds gives")
  },
  HttpApiSchema.annotations({ status: 503 })
) {}

export class UpstreamSessionExpired extends Schema.TaggedError<UpstreamSessionExpired>()(
  "UpstreamSessionExpired",
  {
    upstream: UpstreamName,
    reason: fixed("sesion_expirada"),
    message: message("the upstream session expired; log in again and continue")
  },
  HttpApiSchema.annotations({ status: 502 })
) {}

export class UpstreamRateLimited extends Schema.TaggedError<UpstreamRateLimited>()(
  "UpstreamRateLimited",
  {
    upstream: UpstreamName,
    retryAfterSeconds: RetryAfterSeconds,
    reason: fixed("limite_de_tasa"),
    message: message("the upstream refuses more requests for the seconds retryAfterSeconds gives")
  },
  HttpApiSchema.annotations({ status: 429 })
) {}

export class UpstreamPartial extends Schema.TaggedError<UpstreamPartial>()(
  "UpstreamPartial",
  {
    upstream: UpstreamName,
    recurso: Schema.String.annotations({ description: "What could not be read, e.g. tipoDte:61 or an account id" }),
    reason: fixed("sincronizacion_parcial"),
    message: message("one part of the data could not be read; keep the rest and mark the sync incomplete")
  },
  HttpApiSchema.annotations({ status: 502 })
) {}

export class RcvPeriodOutOfRange extends Schema.TaggedError<RcvPeriodOutOfRange>()(
  "RcvPeriodOutOfRange",
  {
    periodo: Periodo,
    message: message("the RCV exists from period 2017-08 up to the current month")
  },
  HttpApiSchema.annotations({ status: 400 })
) {}

export class BancoAccountNotFound extends Schema.TaggedError<BancoAccountNotFound>()(
  "BancoAccountNotFound",
  { accountId: Schema.String, message: message("no such account in this bank session") },
  HttpApiSchema.annotations({ status: 404 })
) {}

export class IndicadorValueNotFound extends Schema.TaggedError<IndicadorValueNotFound>()(
  "IndicadorValueNotFound",
  {
    codigo: Schema.String,
    fecha: Schema.String,
    message: message("the indicator has no value for that date (weekend, holiday, not yet published)")
  },
  HttpApiSchema.annotations({ status: 404 })
) {}

export type UpstreamError =
  | UpstreamCredentialsInvalid
  | UpstreamMfaRequired
  | UpstreamMfaTimeout
  | UpstreamSessionInUse
  | UpstreamUnavailable
  | UpstreamSessionExpired
  | UpstreamRateLimited
  | UpstreamPartial
