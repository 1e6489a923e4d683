import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { ServicesTest } from "../../../support/TestLayers.ts"

/** Suppliers of every size and persona in three states, and one (S6) never awarded. */
export const SUPPLIERS = [
  {
    id: "sup_1",
    rfc: "GFM010122DZ9",
    persona: "moral",
    name: "Grupo Ferretero del Centro",
    state: "MX-JAL",
    size: "mediana",
    sector: "construccion"
  },
  {
    id: "sup_2",
    rfc: "&BC040317UN0",
    persona: "moral",
    name: "Abastos y Construcciones",
    state: "MX-JAL",
    size: "pequena",
    sector: "construccion"
  },
  { id: "sup_3", rfc: "JUNS6106155I6", persona: "fisica", name: "Juan Núñez Soto", state: "MX-CMX", size: "micro", sector: "consultoria" },
  {
    id: "sup_4",
    rfc: "MAPS490702UMA",
    persona: "fisica",
    name: "María Pérez Sánchez",
    state: "MX-NLE",
    size: "micro",
    sector: "medicamentos"
  },
  {
    id: "sup_5",
    rfc: "LNO050314277",
    persona: "moral",
    name: "Laboratorios del Norte",
    state: "MX-NLE",
    size: "no_mipyme",
    sector: "medicamentos"
  },
  {
    id: "sup_6",
    rfc: "OEMM600616LU0",
    persona: "fisica",
    name: "Oscar Estrada Mena",
    state: "MX-YUC",
    size: "pequena",
    sector: "consultoria"
  }
] as const

/** An RFC on a SAT 69 list that is no supplier, and a valid RFC found nowhere. */
export const RFC_NOT_SUPPLIER = "XYZ100701188"
export const RFC_CLEAN = "CLE9912313YA"

const UNITS = [
  { id: "u_1", clave: "019GYR047", name: "IMSS Coordinación de Abastecimiento", agency: "IMSS", government: "APF", state: "MX-CMX" },
  { id: "u_2", clave: "814000001", name: "Secretaría de Administración de Jalisco", agency: "SAJ", government: "GE", state: "MX-JAL" },
  { id: "u_3", clave: "919039001", name: "Municipio de Monterrey", agency: "MTY", government: "GM", state: "MX-NLE" }
] as const

const LP = "licitacion_publica"
const I3 = "invitacion_tres"
const AD = "adjudicacion_directa"

/** The awards; each one's state is its buying unit's, its size its supplier's. */
export const AWARDS = [
  { id: "a1", supplier: "sup_1", unit: "u_2", year: 2023, procedure: LP, contract: "obra_publica", amount: "1000000.00" },
  { id: "a2", supplier: "sup_1", unit: "u_2", year: 2024, procedure: AD, contract: "obra_publica", amount: "500000.00" },
  { id: "a3", supplier: "sup_1", unit: "u_1", year: 2024, procedure: I3, contract: "adquisiciones", amount: "250000.50" },
  { id: "a4", supplier: "sup_2", unit: "u_2", year: 2023, procedure: AD, contract: "adquisiciones", amount: "120000.00" },
  { id: "a5", supplier: "sup_2", unit: "u_2", year: 2024, procedure: AD, contract: "servicios", amount: "80000.00" },
  { id: "a6", supplier: "sup_3", unit: "u_1", year: 2022, procedure: AD, contract: "servicios", amount: "45000.25" },
  { id: "a7", supplier: "sup_3", unit: "u_1", year: 2024, procedure: AD, contract: "servicios", amount: "54999.75" },
  { id: "a8", supplier: "sup_4", unit: "u_3", year: 2023, procedure: AD, contract: "adquisiciones", amount: "30000.00" },
  { id: "a9", supplier: "sup_5", unit: "u_3", year: 2023, procedure: LP, contract: "adquisiciones", amount: "2000000.00" },
  { id: "a10", supplier: "sup_5", unit: "u_1", year: 2024, procedure: LP, contract: "arrendamientos", amount: "900000.00" },
  { id: "a11", supplier: "sup_5", unit: "u_3", year: 2024, procedure: I3, contract: "servicios_obra", amount: "300000.01" }
] as const

/** Risk records: critical, high, info (cleared), info (ended), medium (multa), medium (SAT 69, twice). */
const RISKS = [
  { id: "r1", rfc: "LNO050314277", supplier: "sup_5", list: "sat_69b", status: "definitivo", ends: null, amount: null },
  { id: "r2", rfc: "&BC040317UN0", supplier: "sup_2", list: "sat_69b", status: "presunto", ends: null, amount: null },
  { id: "r3", rfc: "JUNS6106155I6", supplier: "sup_3", list: "sat_69b", status: "desvirtuado", ends: null, amount: null },
  { id: "r4", rfc: "MAPS490702UMA", supplier: "sup_4", list: "sancion", status: "inhabilitacion", ends: "2020-06-30", amount: null },
  { id: "r5", rfc: "GFM010122DZ9", supplier: "sup_1", list: "sancion", status: "multa", ends: null, amount: "50000.00" },
  { id: "r6", rfc: RFC_NOT_SUPPLIER, supplier: null, list: "sat_69", status: "no_localizados", ends: null, amount: null },
  { id: "r7", rfc: "LNO050314277", supplier: "sup_5", list: "sat_69", status: "firmes", ends: null, amount: null }
] as const

const LAW: Record<string, string> = { obra_publica: "LOPSRM", servicios_obra: "LOPSRM" }
const PREFIX: Record<string, string> = { [LP]: "L", [I3]: "I", [AD]: "A" }

export const insertFixtures = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const s of SUPPLIERS) {
    yield* sql`INSERT INTO market_suppliers (id, rfc, persona, name, state, size, status, sector, registered_on)
               VALUES (${s.id}, ${s.rfc}, ${s.persona}, ${s.name}, ${s.state}, ${s.size}, 'habilitado', ${s.sector}, '2015-01-01')`
  }
  for (const u of UNITS) {
    yield* sql`INSERT INTO market_units (id, clave, name, agency, agency_name, government, state)
               VALUES (${u.id}, ${u.clave}, ${u.name}, ${u.agency}, ${u.name}, ${u.government}, ${u.state})`
  }
  for (const a of AWARDS) {
    const unit = UNITS.find((u) => u.id === a.unit)
    const supplier = SUPPLIERS.find((s) => s.id === a.supplier)
    if (unit === undefined || supplier === undefined) return yield* Effect.die(`fixture award ${a.id} points nowhere`)
    const law = LAW[a.contract] ?? "LAASSP"
    const number = `${PREFIX[a.procedure]}${law === "LOPSRM" ? "O" : "A"}-${unit.clave}-E${a.id.slice(1)}-${a.year}`
    const signed = `${a.year}-06-15`
    yield* sql`INSERT INTO market_opportunities (id, number, unit_id, title, procedure_type, law, contract_type, character, form,
                 state, status, published_on, opens_on, awarded_on, estimated_amount)
               VALUES (${`op_${a.id}`}, ${number}, ${unit.id}, ${`Procedimiento ${a.id}`}, ${a.procedure}, ${law}, ${a.contract},
                 'nacional', 'electronica', ${unit.state}, 'complete', ${`${a.year}-04-01`}, ${`${a.year}-05-01`}, ${signed}, ${a.amount})`
    yield* sql`INSERT INTO market_awards (id, opportunity_id, supplier_id, unit_id, contract_code, title, amount, currency, signed_on,
                 starts_on, ends_on, status, state, year, procedure_type, contract_type, supplier_size)
               VALUES (${a.id}, ${`op_${a.id}`}, ${a.supplier}, ${unit.id}, ${`C-${a.id}`}, ${`Contrato ${a.id}`}, ${a.amount}, 'MXN',
                 ${signed}, ${signed}, ${`${a.year}-12-31`}, 'expirado', ${unit.state}, ${a.year}, ${a.procedure}, ${a.contract},
                 ${supplier.size})`
  }
  yield* sql`INSERT INTO market_award_rollup (state, year, contract_type, procedure_type, supplier_size, awards, amount, suppliers)
             SELECT state, year, contract_type, procedure_type, supplier_size, count(*), sum(amount), count(DISTINCT supplier_id)
             FROM market_awards GROUP BY state, year, contract_type, procedure_type, supplier_size`
  for (const r of RISKS) {
    yield* sql`INSERT INTO market_risks (id, rfc, name, supplier_id, list, status, authority, published_on, ends_on, amount, detail)
               VALUES (${r.id}, ${r.rfc}, ${`Contribuyente ${r.id}`}, ${r.supplier}, ${r.list}, ${r.status},
                 ${r.list === "sancion" ? "Secretaría Anticorrupción y Buen Gobierno" : "SAT"}, ${`2019-0${r.id.slice(1)}-01`},
                 ${r.ends}, ${r.amount}, ${`Registro ${r.id}`})`
  }
  // the data set's row: without it every Mercado tool answers that no data set is loaded
  yield* sql`INSERT INTO market_dataset (seed, suppliers, awards, first_year, last_year, loaded_at)
             VALUES ('aggregate-fixture', ${SUPPLIERS.length}, ${AWARDS.length},
               ${Math.min(...AWARDS.map((a) => a.year))}, ${Math.max(...AWARDS.map((a) => a.year))}, '2026-11-01T00:00:00Z')`
})

/** The program's services over a fresh database holding exactly the rows above. */
export const MercadoFixtures = Layer.effectDiscard(insertFixtures).pipe(Layer.provideMerge(ServicesTest))
