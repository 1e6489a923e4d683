import { Schema } from "effect"
import { maxLength } from "../Length.ts"
import { Fecha } from "./Fecha.ts"

export const InstitutionId = Schema.Literal("bci", "banco_de_chile", "santander", "bancoestado", "itau").annotations({
  identifier: "InstitutionId",
  description: "Chilean bank"
})
export type InstitutionId = typeof InstitutionId.Type

export interface Institution {
  readonly id: InstitutionId
  readonly nombre: string
  readonly singleSession: boolean
}

export const INSTITUTIONS: Readonly<Record<InstitutionId, Institution>> = {
  // BCI permits one live session per user: a second login burns or is refused.
  bci: { id: "bci", nombre: "Banco de Crédito e Inversiones", singleSession: true },
  banco_de_chile: { id: "banco_de_chile", nombre: "Banco de Chile", singleSession: false },
  santander: { id: "santander", nombre: "Banco Santander Chile", singleSession: false },
  bancoestado: { id: "bancoestado", nombre: "BancoEstado", singleSession: false },
  itau: { id: "itau", nombre: "Banco Itaú Chile", singleSession: false }
}

export const AccountType = Schema.Literal("checking_account", "sight_account", "line_of_credit", "credit_card").annotations({
  identifier: "AccountType",
  description:
    "checking_account = cuenta corriente, sight_account = cuenta vista/CuentaRUT, line_of_credit = línea de crédito, credit_card = tarjeta de crédito"
})
export type AccountType = typeof AccountType.Type

const BANK_ID_MAX = 64

export const AccountId = Schema.String.pipe(
  maxLength(BANK_ID_MAX),
  Schema.pattern(/^acc_[A-Za-z0-9]+$/, { message: () => "must be an account id (acc_…)" }),
  Schema.brand("AccountId")
)
export type AccountId = typeof AccountId.Type

export const MovementId = Schema.String.pipe(
  maxLength(BANK_ID_MAX),
  Schema.pattern(/^mov_[A-Za-z0-9]+$/, { message: () => "must be a movement id (mov_…)" }),
  Schema.brand("MovementId")
)
export type MovementId = typeof MovementId.Type

export const Balance = Schema.Struct({
  available: Schema.Int,
  current: Schema.Int.annotations({ description: "Equals the balance after the last posted movement; negative = debt on credit products" }),
  limit: Schema.Int.annotations({ description: "Authorized credit (0 for checking and sight accounts)" })
})
export type Balance = typeof Balance.Type

export const Account = Schema.Struct({
  id: AccountId,
  type: AccountType,
  name: Schema.String.annotations({ description: "Standardized name, e.g. Cuenta Corriente" }),
  officialName: Schema.String.annotations({ description: "The bank's own product name" }),
  number: Schema.String.pipe(Schema.pattern(/^[1-9]\d*$/)),
  currency: Schema.Literal("CLP", "USD"),
  balance: Balance
}).annotations({ identifier: "Account" })
export type Account = typeof Account.Type

export const MovementType = Schema.Literal("transfer", "check", "other")
export type MovementType = typeof MovementType.Type

export const Movement = Schema.Struct({
  id: MovementId,
  accountId: AccountId,
  amount: Schema.Int.annotations({ description: "Signed integer: positive = money in, negative = money out" }),
  balance: Schema.Int.annotations({ description: "Running balance after this movement" }),
  description: Schema.String,
  comment: Schema.optional(Schema.String),
  postDate: Fecha.annotations({ description: "Accounting date (business day)" }),
  transactionDate: Fecha,
  pending: Schema.Boolean.annotations({ description: "Only checks, for up to 2 business days" }),
  referenceId: Schema.String.pipe(Schema.pattern(/^\d{9,12}$/)),
  type: MovementType
}).annotations({ identifier: "Movement", description: "One cartola line" })
export type Movement = typeof Movement.Type
