import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"
import { closed } from "../Body.ts"
import { storable } from "../Depth.ts"
import { ConnectionId } from "../Ids.ts"
import { maxLength, minLength } from "../Length.ts"
import { InstitutionId } from "../upstream/Banco.ts"
import { Rut } from "../upstream/Rut.ts"

export const ConnectorName = Schema.Literal("sii", "banco")
export type ConnectorName = typeof ConnectorName.Type

export const ConnectionState = Schema.Literal("pendiente", "sincronizando", "sincronizada", "error")
export type ConnectionState = typeof ConnectionState.Type

/** Far above any portal's password, and far below what a body may carry. */
const CLAVE_MAX = 256

export const Credentials = Schema.Struct({
  rut: Rut.annotations({ description: "RUT of the user, e.g. 77123456-9 (dots allowed)" }),
  // encrypted as UTF-8, where a lone surrogate would become U+FFFD: another clave than the one sent
  clave: Schema.Redacted(Schema.String.pipe(minLength(1), maxLength(CLAVE_MAX), storable)).annotations({
    description: `Clave, 1 to ${CLAVE_MAX} characters (never returned or logged)`
  })
})
export type Credentials = typeof Credentials.Type

export const CreateConnection = closed(Schema.Struct({
  connector: ConnectorName,
  institution: Schema.optionalWith(InstitutionId, { exact: true }).annotations({
    description: "The bank, for banco connections (bci, banco_de_chile, santander, bancoestado, itau)"
  }),
  credentials: Credentials
}))
export type CreateConnection = typeof CreateConnection.Type

export const UpdateCredentials = closed(Schema.Struct({ credentials: Credentials }))
export type UpdateCredentials = typeof UpdateCredentials.Type

export const Coverage = Schema.Struct({
  scope: Schema.Record({ key: Schema.String, value: Schema.String }),
  sincronizadoEn: Schema.String,
  completo: Schema.Boolean
})

export const ConnectionView = Schema.Struct({
  id: ConnectionId,
  connector: ConnectorName,
  institution: Schema.NullOr(Schema.String),
  state: ConnectionState,
  reason: Schema.NullOr(Schema.String).annotations({
    description: "Why the connection is in error (credenciales_invalidas, mfa_requerido, …)"
  }),
  hint: Schema.NullOr(Schema.String).annotations({ description: "What the user must do before the next sync can work, if anything" }),
  createdAt: Schema.String,
  coverage: Schema.Array(Coverage)
}).annotations({ identifier: "Connection" })
export type ConnectionView = typeof ConnectionView.Type

export class ConnectionNotFound extends Schema.TaggedError<ConnectionNotFound>()(
  "ConnectionNotFound",
  { connectionId: Schema.String, message: Schema.String },
  HttpApiSchema.annotations({ status: 404 })
) {}
