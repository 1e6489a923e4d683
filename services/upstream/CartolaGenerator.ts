import type { Account, AccountType, Balance, InstitutionId, Movement, MovementType } from "../../schema/upstream/Banco.ts"
import { AccountId, MovementId } from "../../schema/upstream/Banco.ts"
import type { Rut } from "../../schema/upstream/Rut.ts"
import {
  type Day,
  dayFromYmd,
  daysInMonth,
  formatIsoDay,
  formatPeriodo,
  isBusinessDay,
  monthFromIndex,
  monthIndex,
  weekday,
  ymdFromDay
} from "./CivilDate.ts"
import { companies } from "./Counterparties.ts"
import { makePrng, type NonEmpty, type Prng } from "./Prng.ts"

export interface AccountPlan {
  readonly id: AccountId
  readonly type: AccountType
  readonly name: string
  readonly officialName: string
  readonly number: string
  readonly level: number
  readonly limit: number
  readonly openMonth: number
  readonly activity: number
  readonly seed: string
}

const NAMES: Record<AccountType, readonly [string, string]> = {
  checking_account: ["Cuenta Corriente", "Cuenta Corriente Moneda Local"],
  sight_account: ["Cuenta Vista", "Cuenta Vista Electrónica"],
  line_of_credit: ["Línea de Crédito", "Línea de Crédito Cuenta Corriente"],
  credit_card: ["Tarjeta de Crédito", "Tarjeta de Crédito Visa Empresas"]
}

const isCredit = (type: AccountType) => type === "line_of_credit" || type === "credit_card"

export const accountPlans = (institution: InstitutionId, rut: Rut): ReadonlyArray<AccountPlan> => {
  const seed = `banco|${institution}|${rut}`
  const p = makePrng(`${seed}|cuentas`)
  const extra: ReadonlyArray<AccountType> = (["sight_account", "line_of_credit", "credit_card"] as const).filter(() => p.chance(0.45))
  return (["checking_account", ...extra] as ReadonlyArray<AccountType>).map((type, i) => {
    const id = AccountId.make(p.id("acc_", 18))
    const [name, officialName] = NAMES[type]
    return {
      id,
      type,
      name,
      officialName,
      number: p.digits(p.int(8, 12)),
      level: Math.round(p.logNormal(8_000_000, 1)),
      limit: isCredit(type) ? p.int(10, 200) * 100_000 : 0,
      openMonth: i === 0 ? monthIndex(p.int(2012, 2016), p.int(1, 12)) : monthIndex(p.int(2017, 2024), p.int(1, 12)),
      activity: p.next(),
      seed: `${seed}|${id}`
    }
  })
}

const openingBalance = (plan: AccountPlan, month: number): number => {
  if (month <= plan.openMonth) return 0
  const p = makePrng(`${plan.seed}|saldo|${formatPeriodo(month)}`)
  return isCredit(plan.type) ? -Math.round(plan.limit * 0.8 * p.next()) : Math.round(plan.level * (0.5 + p.next()))
}

interface Draft {
  readonly post: Day
  readonly transaction: Day
  readonly amount: number
  readonly type: MovementType
  readonly description: string
  readonly comment: string | undefined
  readonly order: number
}

const comercios: NonEmpty<string> = [
  "Copec",
  "Lider",
  "Sodimac",
  "Jumbo",
  "Falabella",
  "Entel",
  "Enel",
  "Aguas Andinas",
  "Uber",
  "Mercado Libre"
]

const draft = (p: Prng, plan: AccountPlan, businessDays: NonEmpty<Day>, names: NonEmpty<string>, order: number): Draft => {
  const post = p.pick(businessDays)
  const transaction = weekday(post) === 1 && p.chance(0.4) ? post - p.int(1, 2) : post
  const size = () => Math.max(1_000, Math.round(p.logNormal(Math.max(plan.level, plan.limit) * 0.04, 1)))
  const base = { post, transaction, order, comment: undefined }
  if (plan.type === "credit_card") {
    return p.chance(0.1)
      ? { ...base, amount: size() * 3, type: "transfer", description: "Pago tarjeta de crédito" }
      : { ...base, amount: -size(), type: "other", description: `Compra ${p.pick(comercios)}` }
  }
  if (plan.type === "line_of_credit") {
    return p.chance(0.45)
      ? { ...base, amount: size(), type: "transfer", description: "Pago línea de crédito" }
      : { ...base, amount: -size(), type: "other", description: p.chance(0.8) ? "Uso línea de crédito" : "Intereses línea de crédito" }
  }
  const kind = p.weighted<MovementType>([["check", 2], ["transfer", 58], ["other", 40]])
  if (kind === "check") {
    const folio = p.digits(7)
    return p.chance(0.5)
      ? { ...base, amount: size(), type: "check", description: `Depósito cheque N° ${folio}` }
      : { ...base, amount: -size(), type: "check", description: `Cheque cobrado N° ${folio}` }
  }
  if (kind === "transfer") {
    const factura = p.chance(0.5) ? `Pago factura ${p.int(100, 99_999)}` : undefined
    return p.chance(0.5)
      ? { ...base, amount: size(), type: "transfer", description: `Traspaso de: ${p.pick(names)}`, comment: factura }
      : { ...base, amount: -size(), type: "transfer", description: `Transferencia a: ${p.pick(names)}`, comment: factura }
  }
  return p.weighted<Draft>([
    [{ ...base, amount: -p.int(3_000, 12_000), type: "other", description: "Comisión mantención" }, 2],
    [{ ...base, amount: -p.int(500, 20_000), type: "other", description: "Impuesto timbre" }, 1],
    [{ ...base, amount: -size(), type: "other", description: `Pago factura ${p.int(100, 99_999)}` }, 4],
    [{ ...base, amount: -Math.round(size() / 10), type: "other", description: `Compra con tarjeta de débito ${p.pick(comercios)}` }, 6]
  ])
}

interface Posted extends Movement {
  readonly post: Day
}

/** The whole month as the bank will eventually show it; it closes exactly on the next month's opening balance. */
const monthMovements = (plan: AccountPlan, month: number): ReadonlyArray<Posted> => {
  if (month < plan.openMonth) return []
  const { month: m, year } = monthFromIndex(month)
  const first = dayFromYmd(year, m, 1)
  const days = Array.from({ length: daysInMonth(year, m) }, (_, i) => first + i).filter(isBusinessDay)
  const [firstDay, ...rest] = days
  if (firstDay === undefined) return []
  const businessDays: NonEmpty<Day> = [firstDay, ...rest]
  const p = makePrng(`${plan.seed}|${formatPeriodo(month)}`)
  const [firstName, ...moreNames] = companies(p, 12, "").map((c) => c.nombre)
  const names: NonEmpty<string> = [firstName ?? "Proveedor", ...moreNames]
  const count = Math.min(399, Math.max(40, Math.round(40 + 360 * plan.activity * (0.8 + 0.4 * p.next()))))
  const drafts = Array.from({ length: count }, (_, i) => draft(p, plan, businessDays, names, i))
  const opening = openingBalance(plan, month)
  const residual = openingBalance(plan, month + 1) - opening - drafts.reduce((sum, d) => sum + d.amount, 0)
  const post = p.pick(businessDays)
  const closing: ReadonlyArray<Draft> = residual === 0 ? [] : [{
    post,
    transaction: post,
    amount: residual,
    type: "transfer",
    description: residual > 0 ? "Traspaso de: Cuenta propia" : "Transferencia a: Cuenta propia",
    comment: undefined,
    order: count
  }]
  let balance = opening
  return [...drafts, ...closing]
    .sort((a, b) => a.post - b.post || a.transaction - b.transaction || a.order - b.order)
    .map((d) => {
      balance += d.amount
      return {
        id: MovementId.make(p.id("mov_", 18)),
        accountId: plan.id,
        amount: d.amount,
        balance,
        description: d.description,
        ...(d.comment !== undefined ? { comment: d.comment } : {}),
        postDate: formatIsoDay(d.post),
        transactionDate: formatIsoDay(d.transaction),
        pending: false,
        referenceId: p.digits(p.int(9, 12)),
        type: d.type,
        post: d.post
      }
    })
}

const businessDaysAfter = (from: Day, to: Day): number => {
  let n = 0
  for (let d = from + 1; d <= to; d++) if (isBusinessDay(d)) n++
  return n
}

const visible = (plan: AccountPlan, month: number, today: Day): ReadonlyArray<Posted> =>
  monthMovements(plan, month)
    .filter((m) => m.post <= today)
    .map((m) => (m.type === "check" && businessDaysAfter(m.post, today) < 2 ? { ...m, pending: true } : m))

const strip = ({ post: _post, ...movement }: Posted): Movement => movement

export const movements = (plan: AccountPlan, desde: Day, hasta: Day, today: Day): ReadonlyArray<Movement> => {
  const last = Math.min(hasta, today)
  if (desde > last) return []
  const from = ymdFromDay(desde)
  const to = ymdFromDay(last)
  const out: Array<Movement> = []
  for (let month = monthIndex(from.year, from.month); month <= monthIndex(to.year, to.month); month++) {
    for (const m of visible(plan, month, today)) if (m.post >= desde && m.post <= last) out.push(strip(m))
  }
  return out
}

export const monthsBetween = (desde: Day, hasta: Day): number => {
  const from = ymdFromDay(desde)
  const to = ymdFromDay(hasta)
  return Math.max(0, monthIndex(to.year, to.month) - monthIndex(from.year, from.month) + 1)
}

export const accountOn = (plan: AccountPlan, today: Day): Account | undefined => {
  const { month, year } = ymdFromDay(today)
  const current = monthIndex(year, month)
  if (current < plan.openMonth) return undefined
  const shown = visible(plan, current, today)
  const balanceNow = shown[shown.length - 1]?.balance ?? openingBalance(plan, current)
  const pendingIn = shown.filter((m) => m.pending && m.amount > 0).reduce((sum, m) => sum + m.amount, 0)
  const balance: Balance = isCredit(plan.type)
    ? { available: plan.limit + balanceNow, current: balanceNow, limit: plan.limit }
    : { available: balanceNow - pendingIn, current: balanceNow, limit: 0 }
  return {
    id: plan.id,
    type: plan.type,
    name: plan.name,
    officialName: plan.officialName,
    number: plan.number,
    currency: "CLP",
    balance
  }
}
