import { Schema } from "effect"

const isCalendarDate = (year: number, month: number, day: number): boolean => {
  const daysInMonth = [31, year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
  return month >= 1 && month <= 12 && day >= 1 && day <= (daysInMonth[month - 1] ?? 0)
}

export const Fecha = Schema.String.pipe(
  Schema.pattern(/^\d{4}-\d{2}-\d{2}$/),
  Schema.filter((s) => isCalendarDate(Number(s.slice(0, 4)), Number(s.slice(5, 7)), Number(s.slice(8, 10))), {
    message: () => "must be a calendar date YYYY-MM-DD"
  })
).annotations({ identifier: "Fecha", description: "Calendar date YYYY-MM-DD (America/Santiago)", examples: ["2026-07-14"] })
export type Fecha = typeof Fecha.Type

export const FechaDmy = Schema.String.pipe(
  Schema.pattern(/^\d{2}\/\d{2}\/\d{4}$/),
  Schema.filter((s) => isCalendarDate(Number(s.slice(6, 10)), Number(s.slice(3, 5)), Number(s.slice(0, 2))), {
    message: () => "must be a calendar date DD/MM/YYYY"
  })
).annotations({ identifier: "FechaDmy", description: "Calendar date DD/MM/YYYY, as SII prints it", examples: ["14/07/2026"] })
export type FechaDmy = typeof FechaDmy.Type
