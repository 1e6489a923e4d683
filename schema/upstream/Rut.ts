import { Schema } from "effect"

export const rutDv = (body: number | string): string => {
  const digits = String(body)
  let sum = 0
  for (let i = 0; i < digits.length; i++) {
    sum += Number(digits[digits.length - 1 - i]) * (2 + (i % 6))
  }
  const r = 11 - (sum % 11)
  return r === 11 ? "0" : r === 10 ? "K" : String(r)
}

const canonicalPattern = /^[1-9]\d{0,7}-[\dK]$/

const isValidCanonical = (value: string): boolean => {
  if (!canonicalPattern.test(value)) return false
  const [body, dv] = value.split("-")
  return body !== undefined && dv !== undefined && rutDv(body) === dv
}

export const RutCanonical = Schema.String.pipe(
  Schema.filter(isValidCanonical, {
    message: () => "must be a RUT like 12345678-5 or 12.345.678-5 (a K check digit in either case) whose check digit is right (mod 11)"
  }),
  Schema.brand("Rut"),
  Schema.annotations({ identifier: "RutCanonical" })
)

const normalize = (input: string): string => {
  const compact = input.replace(/[.\s]/g, "").toUpperCase()
  const withHyphen = compact.includes("-") || compact.length < 2
    ? compact
    : `${compact.slice(0, -1)}-${compact.slice(-1)}`
  return withHyphen.replace(/^0+/, "")
}

export const Rut = Schema.transform(Schema.String, RutCanonical, {
  strict: true,
  decode: normalize,
  encode: (rut) => rut
}).annotations({
  identifier: "Rut",
  title: "RUT",
  description:
    "Chilean RUT with its mod-11 check digit: 12345678-5, also written 12.345.678-5 or with a lowercase k; brein answers it as 12345678-5 (no dots, uppercase K)",
  examples: [RutCanonical.make("77123456-9")]
})
export type Rut = typeof Rut.Type

export const rutFromBody = (body: number): Rut => RutCanonical.make(`${body}-${rutDv(body)}`, { disableValidation: true })

export const formatRut = (rut: string): string => {
  const [body = "", dv = ""] = normalize(rut).split("-")
  return `${body.replace(/\B(?=(\d{3})+(?!\d))/g, ".")}-${dv}`
}
