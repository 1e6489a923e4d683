import { MARKET_SECTOR_KEYS, type MarketSector } from "../../../schema/catalog/MarketSectors.ts"
import { fold } from "../../../schema/geo/Guard.ts"
import { MEXICO_STATES } from "../../../schema/geo/MexicoStates.ts"
import { fisicaLetters, HOMOCLAVES, rfcFisica, rfcMoral } from "../../../schema/tax/Rfc.ts"
import { hashSeed, type NonEmpty, type Prng } from "../../upstream/Prng.ts"
import { FIRST_NAMES, LAST_NAMES } from "../empresas/Names.ts"
import { dayOf, partsOf } from "./Calendar.ts"
import { MORAL_SUFFIXES, NAME_TAILS, SECTOR_LEADS } from "./Names.ts"
import type { SupplierSize } from "./Rows.ts"

const STATE_WEIGHTS: Readonly<Record<string, number>> = {
  "MX-CMX": 20,
  "MX-MEX": 11,
  "MX-JAL": 9,
  "MX-NLE": 9,
  "MX-GUA": 4,
  "MX-PUE": 4,
  "MX-VER": 4,
  "MX-BCN": 3,
  "MX-QUE": 3,
  "MX-CHH": 3,
  "MX-SON": 2.5,
  "MX-COA": 2.5,
  "MX-TAM": 2.5
}
export const STATE_TABLE = MEXICO_STATES.map((s) => [s, STATE_WEIGHTS[s.code] ?? 1.2] as const) as unknown as NonEmpty<
  readonly [(typeof MEXICO_STATES)[number], number]
>

const SECTOR_WEIGHTS: Readonly<Record<MarketSector, number>> = {
  medicamentos: 12,
  equipo_medico: 7,
  construccion: 14,
  mantenimiento: 10,
  tecnologia: 9,
  limpieza: 7,
  alimentos: 8,
  papeleria: 8,
  vehiculos: 6,
  combustibles: 5,
  seguridad: 5,
  consultoria: 9
}
export const SECTOR_TABLE = MARKET_SECTOR_KEYS.map((s) => [s, SECTOR_WEIGHTS[s]] as const) as unknown as NonEmpty<
  readonly [MarketSector, number]
>

const MORAL_SIZES: NonEmpty<readonly [SupplierSize, number]> = [["micro", 28], ["pequena", 30], ["mediana", 18], ["no_mipyme", 24]]
const FISICA_SIZES: NonEmpty<readonly [SupplierSize, number]> = [["micro", 80], ["pequena", 18], ["mediana", 2]]

/** Who holds an RFC: a supplier, or someone only on a permit or a risk list. */
export interface Identity {
  readonly rfc: string
  readonly persona: "moral" | "fisica"
  readonly name: string
  readonly state: string
  readonly sector: MarketSector
  readonly size: SupplierSize
  /** Day of incorporation (moral) or birth (física). */
  readonly born: number
}

const FIRST_MORAL = dayOf("1978-01-01")
const MORAL_DAYS = dayOf("2022-12-31") - FIRST_MORAL + 1
const FIRST_FISICA = dayOf("1950-01-01")
const FISICA_DAYS = dayOf("2000-12-31") - FIRST_FISICA + 1

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b))
const coprimeStride = (space: number) => {
  let stride = 1_000_003
  while (gcd(stride, space) !== 1) stride += 2
  return stride
}

const MORAL_STRIDE = coprimeStride(MORAL_DAYS * HOMOCLAVES)
const FISICA_STRIDE = coprimeStride(FISICA_DAYS * HOMOCLAVES)

/** How many holders can have distinct RFCs of one persona: the data set stays far below it. */
export const RFC_SPACE = Math.min(MORAL_DAYS, FISICA_DAYS) * HOMOCLAVES

// index → (day, homoclave) is a bijection of each space: no two holders share an RFC, whatever their letters.
const spread = (seed: string, index: number, days: number, stride: number) => {
  const space = days * HOMOCLAVES
  const u = (index * stride + hashSeed(`rfc/${seed}`)) % space
  return { day: Math.floor(u / HOMOCLAVES), homoclave: u % HOMOCLAVES }
}

const STOP = new Set(["DE", "DEL", "LA", "LAS", "LOS", "Y", "E", "EL", "S", "A", "C", "V", "R", "L", "P", "I"])

const moralLetters = (name: string) => {
  const words = fold(name).toUpperCase().split(" ").filter((w) => w !== "" && !STOP.has(w) && /^[A-Z]/.test(w))
  const initials = words.slice(0, 3).map((w) => w[0]).join("")
  return words.length >= 3 ? initials : `${initials}${(words[0] ?? "X").slice(1)}XXX`.slice(0, 3)
}

const MX_FIRST = FIRST_NAMES.MX as unknown as NonEmpty<string>
const MX_LAST = LAST_NAMES.MX as unknown as NonEmpty<string>

/** The identity of holder `index` (suppliers first, then holders that only have permits or risks). */
export const identityAt = (seed: string, index: number, prng: Prng, sectorHint?: MarketSector): Identity => {
  const persona = prng.chance(0.3) ? "fisica" : "moral"
  const sector = sectorHint ?? prng.weighted(SECTOR_TABLE)
  const state = prng.weighted(STATE_TABLE).code
  const size = prng.weighted(persona === "moral" ? MORAL_SIZES : FISICA_SIZES)
  if (persona === "moral") {
    const name = `${prng.pick(SECTOR_LEADS[sector])} ${prng.pick(NAME_TAILS)} ${prng.weighted(MORAL_SUFFIXES)}`
    const { day, homoclave } = spread(seed, index, MORAL_DAYS, MORAL_STRIDE)
    const born = FIRST_MORAL + day
    return { rfc: rfcMoral(moralLetters(name), partsOf(born), homoclave), persona, name, state, sector, size, born }
  }
  const given = prng.pick(MX_FIRST)
  const paternal = prng.pick(MX_LAST)
  const maternal = prng.pick(MX_LAST)
  const { day, homoclave } = spread(seed, index, FISICA_DAYS, FISICA_STRIDE)
  const born = FIRST_FISICA + day
  const rfc = rfcFisica(fisicaLetters(paternal, maternal, given), partsOf(born), homoclave)
  return { rfc, persona, name: `${given} ${paternal} ${maternal}`, state, sector, size, born }
}
