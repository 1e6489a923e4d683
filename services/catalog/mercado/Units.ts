import type { MarketSector } from "../../../schema/catalog/MarketSectors.ts"
import { MEXICO_STATES } from "../../../schema/geo/MexicoStates.ts"
import { makePrng, type NonEmpty } from "../../upstream/Prng.ts"
import { AGENCIES, MUNICIPAL_AREAS, MUNICIPALITIES, STATE_AGENCIES } from "./Agencies.ts"
import { STATE_TABLE } from "./Identity.ts"
import type { MarketIds } from "./Ids.ts"
import type { Government, UnitRow } from "./Rows.ts"

/** A buying unit with what the generator needs beside its row: what it buys most and how busy it is. */
export interface Unit {
  readonly row: UnitRow
  readonly stateName: string
  readonly sectors: ReadonlyArray<MarketSector>
  readonly activity: number
}

const GOVERNMENTS: NonEmpty<readonly [Government, number]> = [["APF", 60], ["GE", 28], ["GM", 12]]
const AGENCY_TABLE = AGENCIES.map((a) => [a, a.weight] as const) as unknown as NonEmpty<readonly [(typeof AGENCIES)[number], number]>
const STATE_AGENCY_TABLE = STATE_AGENCIES.map((a) => [a, a[3]] as const) as unknown as NonEmpty<
  readonly [(typeof STATE_AGENCIES)[number], number]
>
const CMX = MEXICO_STATES.find((s) => s.code === "MX-CMX") ?? MEXICO_STATES[0]
const three = (n: number) => String(n).padStart(3, "0")
const two = (n: number) => String(n).padStart(2, "0")
const ofState = (code: string, name: string) =>
  code === "MX-MEX" ? "del Estado de México" : code === "MX-CMX" ? "de la Ciudad de México" : `de ${name}`

/**
 * The buying units of the data set of `seed`. Claves are 9 characters: a 6-character prefix (the
 * agency's ramo and unidad responsable, or 9/8 + INEGI state number + agency or municipality for
 * state and municipal governments) and a 3-digit number counted per prefix, so none repeats.
 */
export const buildUnits = (seed: string, ids: MarketIds, count: number): ReadonlyArray<Unit> => {
  const prng = makePrng(`${seed}/units`)
  const used = new Map<string, number>()
  const next = (prefix: string): string | undefined => {
    const n = (used.get(prefix) ?? prng.int(0, 30)) + (prng.chance(0.7) ? 1 : 2)
    if (n > 999) return undefined
    used.set(prefix, n)
    return `${prefix}${three(n)}`
  }
  const units: Array<Unit> = []
  while (units.length < count) {
    const government = prng.weighted(GOVERNMENTS)
    const index = units.length
    if (government === "APF") {
      const agency = prng.weighted(AGENCY_TABLE)
      const state = prng.chance(agency.central) ? CMX : prng.weighted(STATE_TABLE)
      const clave = next(agency.prefix)
      if (clave === undefined) continue
      const kind = prng.pick(agency.units as unknown as NonEmpty<string>)
      const name = `${agency.acronym}-${kind}${state.code === "MX-CMX" ? "" : ` ${state.name}`} #${clave.slice(6)}`
      const row = { id: ids.unit(index), clave, name, agency: agency.acronym, agencyName: agency.name, government, state: state.code }
      units.push({ row, stateName: state.name, sectors: agency.sectors, activity: (agency.weight / 4) * prng.logNormal(1, 0.7) })
    } else if (government === "GE") {
      const state = prng.weighted(STATE_TABLE)
      const [code, name, sectors] = prng.weighted(STATE_AGENCY_TABLE)
      const clave = next(`9${state.inegi}${code}`)
      if (clave === undefined) continue
      const row = {
        id: ids.unit(index),
        clave,
        name: `${name} ${ofState(state.code, state.name)}`,
        agency: `GE-${state.code.slice(3)}`,
        agencyName: state.code === "MX-CMX"
          ? "Gobierno de la Ciudad de México"
          : `Gobierno del Estado de ${state.code === "MX-MEX" ? "México" : state.name}`,
        government,
        state: state.code
      }
      units.push({ row, stateName: state.name, sectors, activity: 1.2 * prng.logNormal(1, 0.7) })
    } else {
      const state = prng.weighted(STATE_TABLE)
      const towns = MUNICIPALITIES[state.code] ?? [state.capital]
      const town = Math.min(towns.length - 1, prng.int(0, towns.length - 1))
      const [area, sectors] = prng.pick(MUNICIPAL_AREAS)
      const clave = next(`8${state.inegi}M${two(town + 1)}`)
      if (clave === undefined) continue
      const townName = towns[town] ?? state.capital
      const row = {
        id: ids.unit(index),
        clave,
        name: `${area}, ${townName}`,
        agency: `GM-${state.code.slice(3)}`,
        agencyName: `Municipio de ${townName}, ${state.name}`,
        government,
        state: state.code
      }
      units.push({ row, stateName: state.name, sectors, activity: 0.6 * prng.logNormal(1, 0.7) })
    }
  }
  return units
}
