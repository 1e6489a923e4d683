import { Schema } from "effect"
import { Account, AccountId, Movement } from "../upstream/Banco.ts"
import { Fecha } from "../upstream/Fecha.ts"
import { Periodo } from "../upstream/Rcv.ts"
import { Version } from "./Sii.ts"
import { Cursor, EnCurso, Esperar, Limit, Sincronizacion } from "./Sync.ts"

export const Mes = Periodo.annotations({ description: "Calendar month YYYY-MM: the movements posted in it" })

export const BancoSyncInput = Schema.Struct({
  periodo: Mes,
  esperar: Schema.optionalWith(Esperar, { default: () => 25 })
})

export const CuentasQueryInput = Schema.Struct({})

export const CachedCuenta = Schema.Struct({
  ...Account.fields,
  version: Schema.Int.annotations({ description: "1 + the number of times a sync saw it change (balances included)" })
})
export type CachedCuenta = typeof CachedCuenta.Type

export const CuentasQueryOutput = Schema.Struct({
  cuentas: Schema.Array(CachedCuenta),
  sincronizacion: Sincronizacion.annotations({
    description: "The latest sync of any month: balances are as of sincronizadoEn. null when the connection was never synced"
  }),
  sincronizacionEnCurso: EnCurso
})

export const MovimientosQueryInput = Schema.Struct({
  desde: Fecha.annotations({ description: "First posting date (post_date), inclusive" }),
  hasta: Fecha.annotations({ description: "Last posting date (post_date), inclusive" }),
  cuenta: Schema.optionalWith(AccountId, { exact: true }).annotations({
    description: "Only this account (banco.cuentas.consultar lists them)"
  }),
  incluirHistorial: Schema.optionalWith(Schema.Boolean, { default: () => false }).annotations({
    description: "Add each movement's earlier versions (what changed between syncs, e.g. a check no longer pending)"
  }),
  limit: Schema.optionalWith(Limit, { default: () => 100 }),
  cursor: Schema.optionalWith(Cursor, { exact: true })
})

export const CachedMovimiento = Schema.Struct({
  ...Movement.fields,
  currency: Account.fields.currency,
  periodo: Mes,
  version: Schema.Int.annotations({ description: "1 + the number of times a sync saw it change" }),
  historial: Schema.optional(Schema.Array(Version))
})
export type CachedMovimiento = typeof CachedMovimiento.Type

export const MovimientosQueryOutput = Schema.Struct({
  movimientos: Schema.Array(CachedMovimiento).annotations({
    description: "Ordered by post_date, then in the order they were first cached (the bank's order within one sync)"
  }),
  cursor: Schema.NullOr(Schema.String),
  sincronizacion: Sincronizacion.annotations({
    description:
      "Over every month of [desde, hasta]: completo only if all were synced completely; sincronizadoEn is the oldest of them. null when some month was never synced"
  }),
  sincronizacionEnCurso: EnCurso
})
