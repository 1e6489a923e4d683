import { hashSeed } from "../../upstream/Prng.ts"

const base36 = (n: number, width: number) => n.toString(36).padStart(width, "0")

/** Ids carry the seed's tag, so two data sets never share an id: `sup_<tag><index>`. */
export const marketIds = (seed: string) => {
  const tag = base36(hashSeed(`mercado/${seed}`), 7)
  return {
    supplier: (index: number) => `sup_${tag}${base36(index, 5)}`,
    unit: (index: number) => `uc_${tag}${base36(index, 4)}`,
    opportunity: (index: number) => `opp_${tag}${base36(index, 6)}`,
    award: (index: number) => `awd_${tag}${base36(index, 6)}`,
    permit: (index: number) => `pmt_${tag}${base36(index, 6)}`,
    risk: (index: number) => `rsk_${tag}${base36(index, 6)}`
  }
}
export type MarketIds = ReturnType<typeof marketIds>
