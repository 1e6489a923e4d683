import { Clock, DateTime, Effect } from "effect"
import { CLEARED_STATUSES, type RiskStatus } from "../../../schema/catalog/MercadoFields.ts"

/** Today's date (UTC) by the Clock: the day end dates of risk findings are compared with. */
export const today = Effect.map(Clock.currentTimeMillis, (millis) => DateTime.formatIsoDateUtc(DateTime.unsafeMake(millis)))

/** A risk record as far as being in force goes: its status and the day it ends (null: no end). */
export interface Standing {
  readonly status: RiskStatus
  readonly endsOn: string | null
}

/** Whether a status clears the taxpayer (desvirtuado, sentencia favorable): the record stays on file, no longer a risk. */
export const isCleared = (status: RiskStatus) => CLEARED_STATUSES.includes(status)

/** Whether a risk record is in force on `today` (YYYY-MM-DD): not cleared, and its end date not passed. */
export const inForce = (record: Standing, today: string) => !isCleared(record.status) && (record.endsOn === null || record.endsOn >= today)

const CLEARED_LIST = CLEARED_STATUSES.map((s) => `'${s}'`).join(", ")

/** The SQL of isCleared for risk rows `r`. */
export const clearedSql = `r.status IN (${CLEARED_LIST})`

/** The SQL of inForce for risk rows `r`, as of the date in parameter `today`. */
const inForceSql = (today: string) => `NOT ${clearedSql} AND (r.ends_on IS NULL OR r.ends_on >= ${today}::date)`

/**
 * The SQL of "supplier `s` has a risk finding in force" as of the date in parameter `today`: the one
 * meaning of `has_risk`, in the searches, the counts and a supplier's record. A finding belongs to
 * the taxpayer its RFC names (the lists are published by RFC).
 */
export const atRiskSql = (today: string) => `EXISTS (SELECT 1 FROM market_risks r WHERE r.rfc = s.rfc AND ${inForceSql(today)})`
