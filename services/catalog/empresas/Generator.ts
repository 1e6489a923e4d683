import type { CompanyRow, Country, Industry, PersonRow, Size } from "../../../schema/catalog/Directory.ts"
import { INDUSTRIES, SIZES } from "../../../schema/catalog/Directory.ts"
import { CHILE_REGIONS } from "../../../schema/geo/ChileRegions.ts"
import { fold } from "../../../schema/geo/Guard.ts"
import { MEXICO_STATES } from "../../../schema/geo/MexicoStates.ts"
import { HOMOCLAVES, rfcMoral } from "../../../schema/tax/Rfc.ts"
import { rutFromBody } from "../../../schema/upstream/Rut.ts"
import { hashSeed, makePrng, type NonEmpty, type Prng } from "../../upstream/Prng.ts"
import { FIRST_NAMES, INDUSTRY_WORDS, LAST_NAMES, LEGAL_SUFFIX, MORE_CITIES, MX_AREA, NAME_WORDS, ROLES } from "./Names.ts"

export { DEFAULT_COMPANIES, DEFAULT_SEED, MAX_COMPANIES } from "../../../schema/catalog/SeedSizes.ts"

const RUT_FIRST = 76_000_000
const RUT_SPAN = 3_000_000
// Coprime with RUT_SPAN (2⁶·3·5⁶): index → body is a bijection, so no two companies share a RUT.
const RUT_STRIDE = 1_299_709
const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const
const PER_YEAR_BLOCK = HOMOCLAVES * 365
const YEAR_BLOCKS = 4
// Coprime with PER_YEAR_BLOCK (2²·5·17²·73).
const RFC_STRIDE = 7_919

const CL_WEIGHTS: Readonly<Record<string, number>> = {
  "CL-RM": 45,
  "CL-VS": 10,
  "CL-BI": 9,
  "CL-AN": 5,
  "CL-CO": 4,
  "CL-LL": 4,
  "CL-ML": 4,
  "CL-LI": 4,
  "CL-AR": 4
}
const MX_WEIGHTS: Readonly<Record<string, number>> = {
  "MX-CMX": 22,
  "MX-MEX": 12,
  "MX-JAL": 10,
  "MX-NLE": 10,
  "MX-GUA": 5,
  "MX-PUE": 4,
  "MX-BCN": 4,
  "MX-QUE": 3
}
interface Place {
  readonly code: string
  readonly capital: string
}
const table = (places: ReadonlyArray<Place>, weights: Readonly<Record<string, number>>, otherwise: number) =>
  places.map((p) => [p, weights[p.code] ?? otherwise] as const) as unknown as NonEmpty<readonly [Place, number]>

const CL_REGIONS = table(CHILE_REGIONS, CL_WEIGHTS, 1.5)
const MX_STATES = table(MEXICO_STATES, MX_WEIGHTS, 1)
const INDUSTRY_KEYS = Object.keys(INDUSTRIES) as unknown as NonEmpty<Industry>
const SIZE_WEIGHTS: NonEmpty<readonly [Size, number]> = [["micro", 35], ["pequena", 35], ["mediana", 20], ["grande", 10]]
const PEOPLE: Record<Size, readonly [number, number]> = { micro: [1, 2], pequena: [1, 3], mediana: [2, 5], grande: [3, 6] }
const CL_AREAS: NonEmpty<string> = ["32", "41", "55", "51", "65", "71", "45", "72", "42"]
const [[GENERAL_MANAGER], ...rest] = ROLES
const OTHER_ROLES = rest as unknown as NonEmpty<(typeof ROLES)[number]>
const STOP = new Set(["de", "del", "la", "las", "los", "y", "e", "el"])

// Names come from short lists: each is folded once, not once per company.
const slugs = new Map<string, string>()
export const slug = (text: string) => {
  let folded = slugs.get(text)
  if (folded === undefined) {
    folded = fold(text).replace(/ /g, "")
    if (slugs.size < 100_000) slugs.set(text, folded)
  }
  return folded
}
const base36 = (n: number, width: number) => n.toString(36).padStart(width, "0")
const seedTag = (seed: string) => base36(hashSeed(seed), 7)

export const companyId = (seed: string, index: number) => `co_${seedTag(seed)}${base36(index, 5)}`

const rfcLetters = (name: string) => {
  const words = fold(name).toUpperCase().split(" ").filter((w) => w !== "" && !STOP.has(w.toLowerCase()) && /^[A-Z]/.test(w))
  const initials = words.slice(0, 3).map((w) => w[0]).join("")
  return (initials + (words[0] ?? "") + "XXX").replace(/[^A-Z]/g, "").slice(0, 3)
}

/** Month and day of the `n`-th day (0-based) of a common year. */
const dayOfYear = (n: number) => {
  let month = 0
  let day = n
  while (day >= (DAYS[month] ?? 31)) day -= DAYS[month++] ?? 31
  return { month: month + 1, day: day + 1 }
}

const employeesFor = (prng: Prng, size: Size) =>
  size === "grande"
    ? Math.min(20_000, Math.round(SIZES.grande.min * prng.logNormal(2, 0.8)) + prng.int(0, 99))
    : prng.int(SIZES[size].min, SIZES[size].max)

const digits = (prng: Prng, n: number) => String(prng.int(0, 10 ** n - 1)).padStart(n, "0")

const phoneOf = (prng: Prng, country: Country, region: string, mobile: boolean) => {
  if (country === "CL") {
    if (mobile) return `+56 9 ${digits(prng, 4)} ${digits(prng, 4)}`
    return region === "CL-RM"
      ? `+56 2 2${digits(prng, 3)} ${digits(prng, 4)}`
      : `+56 ${prng.pick(CL_AREAS)} ${digits(prng, 3)} ${digits(prng, 4)}`
  }
  const area = MX_AREA[region] ?? String(prng.int(222, 999))
  return `+52 ${area} ${digits(prng, 10 - area.length)}`
}

export interface GeneratedCompany {
  readonly company: CompanyRow
  readonly people: ReadonlyArray<PersonRow>
}

/** The `index`-th company of the directory of `seed` and its people: the same seed and index give the same rows. */
export const companyAt = (seed: string, index: number): GeneratedCompany => {
  const prng = makePrng(`${seed}/${index}`)
  const country: Country = prng.chance(0.55) ? "CL" : "MX"
  const place = country === "CL" ? prng.weighted(CL_REGIONS) : prng.weighted(MX_STATES)
  const industry = prng.pick(INDUSTRY_KEYS)
  const words = INDUSTRY_WORDS[industry]
  const tradeName = `${prng.pick(words.lead)} ${prng.pick(NAME_WORDS)}`
  const suffix = prng.weighted(LEGAL_SUFFIX[country] as unknown as NonEmpty<readonly [string, number]>)
  const legalName = `${tradeName} ${suffix}`
  const size = prng.weighted(SIZE_WEIGHTS)
  const employees = employeesFor(prng, size)
  const city = prng.pick(MORE_CITIES[place.code] ?? [place.capital])
  const domain = `${slug(tradeName)}.${country === "CL" ? "cl" : "com.mx"}`
  let foundedYear = Math.max(1950, 2024 - Math.floor(Math.abs(prng.normal()) * 14))
  let taxId: string
  if (country === "CL") {
    taxId = rutFromBody(RUT_FIRST + (index * RUT_STRIDE + hashSeed(seed)) % RUT_SPAN)
  } else {
    // (year class, day, homoclave) is a function of the index that never repeats below MAX_COMPANIES.
    // Within a block the stride (coprime with its size) spreads neighbours over the year.
    const block = Math.floor(index / PER_YEAR_BLOCK) % YEAR_BLOCKS
    const spread = (index * RFC_STRIDE + hashSeed(seed)) % PER_YEAR_BLOCK
    foundedYear -= (((foundedYear - block) % YEAR_BLOCKS) + YEAR_BLOCKS) % YEAR_BLOCKS
    const date = dayOfYear(Math.floor(spread / HOMOCLAVES))
    taxId = rfcMoral(rfcLetters(legalName), { year: foundedYear, ...date }, spread % HOMOCLAVES)
  }
  const revenue = Math.round((employees * prng.logNormal(country === "CL" ? 60_000 : 45_000, 0.5)) / 1000) * 1000
  const id = companyId(seed, index)
  const company: CompanyRow = {
    id,
    country,
    taxId,
    legalName,
    tradeName,
    industry,
    giro: country === "CL" ? words.giro : null,
    size,
    employees,
    region: place.code,
    city,
    domain,
    foundedYear,
    revenueEstimate: revenue,
    phone: prng.chance(0.9) ? phoneOf(prng, country, place.code, false) : null,
    linkedinUrl: prng.chance(0.7) ? `https://www.linkedin.com/company/${slug(tradeName)}` : null
  }
  const [least, most] = PEOPLE[size]
  const people = Array.from({ length: prng.int(least, most) }, (_, k): PersonRow => {
    const firstName = prng.pick(FIRST_NAMES[country] as unknown as NonEmpty<string>)
    const lastName = `${prng.pick(LAST_NAMES[country] as unknown as NonEmpty<string>)} ${
      prng.pick(LAST_NAMES[country] as unknown as NonEmpty<string>)
    }`
    const [title, department, seniority] = k === 0 ? GENERAL_MANAGER : prng.weighted(OTHER_ROLES)
    const first = slug(firstName)
    const last = slug(lastName.split(" ")[0] ?? lastName)
    return {
      id: `pe_${id.slice(3)}${k}`,
      companyId: id,
      firstName,
      lastName,
      fullName: `${firstName} ${lastName}`,
      title,
      department,
      seniority,
      country,
      region: place.code,
      email: prng.chance(0.85) ? (prng.chance(0.5) ? `${first}.${last}@${domain}` : `${first[0] ?? "x"}${last}@${domain}`) : null,
      phone: prng.chance(0.6) ? phoneOf(prng, country, place.code, true) : null,
      linkedinUrl: prng.chance(0.6) ? `https://www.linkedin.com/in/${first}-${last}-${base36(prng.int(0, 36 ** 5), 5)}` : null
    }
  })
  return { company, people }
}

/** The directory of `seed` in batches of `size` companies: never more than one batch in memory. */
export function* directoryBatches(seed: string, companies: number, size = 5_000): Generator<ReadonlyArray<GeneratedCompany>> {
  for (let start = 0; start < companies; start += size) {
    const end = Math.min(companies, start + size)
    yield Array.from({ length: end - start }, (_, i) => companyAt(seed, start + i))
  }
}
