import type { CachedMovimiento } from "../../../schema/connectors/Banco.ts"
import type { Account } from "../../../schema/upstream/Banco.ts"
import type { CachedResource } from "../../sync/CacheWriter.ts"

/** Accounts as cached: one row per account of a connection; a balance that moved is a new version. */
export const CuentasResource: CachedResource<Account> = {
  resource: "banco.cuentas",
  table: "bank_accounts",
  columns: [
    { name: "account_id", type: "text" },
    { name: "type", type: "text" },
    { name: "name", type: "text" },
    { name: "official_name", type: "text" },
    { name: "number", type: "text" },
    { name: "currency", type: "text" },
    { name: "balance_available", type: "bigint" },
    { name: "balance_current", type: "bigint" },
    { name: "balance_limit", type: "bigint" }
  ],
  naturalKey: (a) => a.id,
  values: (a) => [a.id, a.type, a.name, a.officialName, a.number, a.currency, a.balance.available, a.balance.current, a.balance.limit]
}

export type MovimientoRow = Omit<CachedMovimiento, "version" | "historial">

/** Cartola lines as cached: one row per movement id of a connection (a check that clears is a new version). */
export const MovimientosResource: CachedResource<MovimientoRow> = {
  resource: "banco.movimientos",
  table: "bank_movements",
  columns: [
    { name: "account_id", type: "text" },
    { name: "movement_id", type: "text" },
    { name: "periodo", type: "text" },
    { name: "post_date", type: "date" },
    { name: "transaction_date", type: "date" },
    { name: "amount", type: "bigint" },
    { name: "balance", type: "bigint" },
    { name: "currency", type: "text" },
    { name: "description", type: "text" },
    { name: "comment", type: "text" },
    { name: "pending", type: "boolean" },
    { name: "reference_id", type: "text" },
    { name: "type", type: "text" }
  ],
  naturalKey: (m) => m.id,
  values: (m) => [
    m.accountId,
    m.id,
    m.periodo,
    m.postDate,
    m.transactionDate,
    m.amount,
    m.balance,
    m.currency,
    m.description,
    m.comment ?? null,
    m.pending,
    m.referenceId,
    m.type
  ]
}
