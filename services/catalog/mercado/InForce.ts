import { CLEARED_STATUSES, type RiskStatus } from "../../../schema/catalog/MercadoFields.ts"

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
export const inForceSql = (today: string) => `NOT ${clearedSql} AND (r.ends_on IS NULL OR r.ends_on >= ${today}::date)`
