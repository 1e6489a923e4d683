import { Schema } from "effect"

const DICTIONARY = "0123456789ABCDEFGHIJKLMN&OPQRSTUVWXYZ Ñ"

/** SAT's check character of an RFC: the 11 (moral) or 12 (física) characters before it. */
export const rfcCheck = (head: string): string => {
  const padded = head.length === 11 ? ` ${head}` : head
  let sum = 0
  for (let i = 0; i < 12; i++) sum += DICTIONARY.indexOf(padded[i] ?? " ") * (13 - i)
  const r = 11 - (sum % 11)
  return r === 11 ? "0" : r === 10 ? "A" : String(r)
}

const shape = /^([A-ZÑ&]{3,4})(\d{2})(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])([A-Z\d]{2})([A\d])$/

/** The generic RFCs (público en general, extranjeros) carry no valid check character. */
export const GENERIC_RFCS: ReadonlySet<string> = new Set(["XAXX010101000", "XEXX010101000"])

const isValidRfc = (value: string): boolean => {
  if (GENERIC_RFCS.has(value)) return true
  if (!shape.test(value)) return false
  return rfcCheck(value.slice(0, -1)) === value.slice(-1)
}

export const RfcCanonical = Schema.String.pipe(
  Schema.filter(isValidRfc, {
    message: () =>
      "must be an RFC of 12 characters (persona moral: 3 letters, YYMMDD, 2 homoclave, check) or 13 (persona física: 4 letters, …) with a valid check character"
  }),
  Schema.brand("Rfc"),
  Schema.annotations({ identifier: "RfcCanonical" })
)

/** Mexican RFC, upper case without spaces or hyphens; decoding also accepts lower case and "GFM-010122-DZ9". */
export const Rfc = Schema.transform(Schema.String, RfcCanonical, {
  strict: true,
  decode: (input) => input.replace(/[\s-]/g, "").toUpperCase(),
  encode: (rfc) => rfc
}).annotations({
  identifier: "Rfc",
  title: "RFC",
  description: "Mexican RFC: persona moral 12 characters (GFM010122DZ9), persona física 13 (JUNS6106155I6), with SAT's check character",
  examples: [RfcCanonical.make("GFM010122DZ9")]
})
export type Rfc = typeof Rfc.Type

export const isMoral = (rfc: string) => rfc.length === 12

const HOMOCLAVE = "123456789ABCDEFGHIJKLMNPQRSTUVWXYZ"

interface RfcDate {
  readonly year: number
  readonly month: number
  readonly day: number
}

const rfcOf = (letters: string, date: RfcDate, homoclave: number): Rfc => {
  const two = (n: number) => String(n).padStart(2, "0")
  const clave = `${HOMOCLAVE[Math.floor(homoclave / HOMOCLAVE.length) % HOMOCLAVE.length] ?? "1"}${
    HOMOCLAVE[homoclave % HOMOCLAVE.length] ?? "1"
  }`
  const head = `${letters}${two(date.year % 100)}${two(date.month)}${two(date.day)}${clave}`
  return RfcCanonical.make(`${head}${rfcCheck(head)}`, { disableValidation: true })
}

/** A persona moral RFC from its three letters, incorporation date and homoclave number (0 … 1,155). */
export const rfcMoral = (letters: string, date: RfcDate, homoclave: number): Rfc => rfcOf(letters.slice(0, 3), date, homoclave)

/** A persona física RFC from its four letters, birth date and homoclave number (0 … 1,155). */
export const rfcFisica = (letters: string, date: RfcDate, homoclave: number): Rfc => rfcOf(letters.slice(0, 4), date, homoclave)

// SAT replaces the last letter of a física's four letters by X when they spell one of these.
const INCONVENIENT = new Set(
  ("BACA BAKA BUEI BUEY CACA CACO CAGA CAGO CAKA CAKO COGE COGI COJA COJE COJI COJO COLA CULO FALO FETO GETA GUEI GUEY JETA " +
    "JOTO KACA KACO KAGA KAGO KAKA KAKO KOGE KOGI KOJA KOJE KOJI KOJO KOLA KULO LILO LOCA LOCO LOKA LOKO MAME MAMO MEAR MEAS " +
    "MEON MIAR MION MOCO MOKO MULA MULO NACA NACO PEDA PEDO PENE PIPI PITO POPO PUTA PUTO QULO RATA ROBA ROBE ROBO RUIN SENO " +
    "TETA VACA VAGA VAGO VAKA VUEI VUEY WUEI WUEY").split(" ")
)

const letters = (word: string) => word.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toUpperCase().replace(/[^A-Z]/g, "")

/** The four letters of a física's RFC: paternal surname's initial and first inner vowel, maternal initial, first name's initial. */
export const fisicaLetters = (paternal: string, maternal: string, given: string): string => {
  const p = letters(paternal)
  const vowel = /[AEIOU]/.exec(p.slice(1))?.[0] ?? "X"
  const raw = `${p[0] ?? "X"}${vowel}${letters(maternal)[0] ?? "X"}${letters(given)[0] ?? "X"}`
  return INCONVENIENT.has(raw) ? `${raw.slice(0, 3)}X` : raw
}

export const HOMOCLAVES = HOMOCLAVE.length * HOMOCLAVE.length
