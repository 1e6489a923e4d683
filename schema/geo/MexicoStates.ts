import { Schema } from "effect"
import { guardedPlace } from "./Guard.ts"

/** Mexico's 32 federal entities: ISO 3166-2:MX code, INEGI number, name, capital, RENAPO code. */
export const MEXICO_STATES = [
  { code: "MX-AGU", inegi: "01", name: "Aguascalientes", capital: "Aguascalientes", renapo: "AS", aliases: ["Ags"] },
  { code: "MX-BCN", inegi: "02", name: "Baja California", capital: "Mexicali", renapo: "BC", aliases: ["BC"] },
  { code: "MX-BCS", inegi: "03", name: "Baja California Sur", capital: "La Paz", renapo: "BS", aliases: ["BCS"] },
  { code: "MX-CAM", inegi: "04", name: "Campeche", capital: "San Francisco de Campeche", renapo: "CC", aliases: ["Camp"] },
  { code: "MX-COA", inegi: "05", name: "Coahuila de Zaragoza", capital: "Saltillo", renapo: "CL", aliases: ["Coahuila", "Coah"] },
  { code: "MX-COL", inegi: "06", name: "Colima", capital: "Colima", renapo: "CM", aliases: ["Col"] },
  { code: "MX-CHP", inegi: "07", name: "Chiapas", capital: "Tuxtla Gutiérrez", renapo: "CS", aliases: ["Chis"] },
  { code: "MX-CHH", inegi: "08", name: "Chihuahua", capital: "Chihuahua", renapo: "CH", aliases: ["Chih"] },
  {
    code: "MX-CMX",
    inegi: "09",
    name: "Ciudad de México",
    capital: "Ciudad de México",
    renapo: "DF",
    aliases: ["CDMX", "DF", "Distrito Federal", "MX-DIF", "Mexico City"]
  },
  { code: "MX-DUR", inegi: "10", name: "Durango", capital: "Victoria de Durango", renapo: "DG", aliases: ["Dgo"] },
  { code: "MX-GUA", inegi: "11", name: "Guanajuato", capital: "Guanajuato", renapo: "GT", aliases: ["Gto"] },
  { code: "MX-GRO", inegi: "12", name: "Guerrero", capital: "Chilpancingo", renapo: "GR", aliases: ["Gro"] },
  { code: "MX-HID", inegi: "13", name: "Hidalgo", capital: "Pachuca", renapo: "HG", aliases: ["Hgo"] },
  { code: "MX-JAL", inegi: "14", name: "Jalisco", capital: "Guadalajara", renapo: "JC", aliases: ["Jal"] },
  {
    code: "MX-MEX",
    inegi: "15",
    name: "Estado de México",
    capital: "Toluca",
    renapo: "MC",
    aliases: ["Edomex", "Edo Mex", "Edo. de México", "México", "Mex"]
  },
  { code: "MX-MIC", inegi: "16", name: "Michoacán de Ocampo", capital: "Morelia", renapo: "MN", aliases: ["Michoacán", "Mich"] },
  { code: "MX-MOR", inegi: "17", name: "Morelos", capital: "Cuernavaca", renapo: "MS", aliases: ["Mor"] },
  { code: "MX-NAY", inegi: "18", name: "Nayarit", capital: "Tepic", renapo: "NT", aliases: ["Nay"] },
  { code: "MX-NLE", inegi: "19", name: "Nuevo León", capital: "Monterrey", renapo: "NL", aliases: ["NL", "N.L."] },
  { code: "MX-OAX", inegi: "20", name: "Oaxaca", capital: "Oaxaca de Juárez", renapo: "OC", aliases: ["Oax"] },
  { code: "MX-PUE", inegi: "21", name: "Puebla", capital: "Puebla", renapo: "PL", aliases: ["Pue"] },
  {
    code: "MX-QUE",
    inegi: "22",
    name: "Querétaro",
    capital: "Santiago de Querétaro",
    renapo: "QT",
    aliases: ["Querétaro de Arteaga", "Qro"]
  },
  { code: "MX-ROO", inegi: "23", name: "Quintana Roo", capital: "Chetumal", renapo: "QR", aliases: ["Q Roo", "Q. Roo"] },
  { code: "MX-SLP", inegi: "24", name: "San Luis Potosí", capital: "San Luis Potosí", renapo: "SP", aliases: ["SLP"] },
  { code: "MX-SIN", inegi: "25", name: "Sinaloa", capital: "Culiacán", renapo: "SL", aliases: ["Sin"] },
  { code: "MX-SON", inegi: "26", name: "Sonora", capital: "Hermosillo", renapo: "SR", aliases: ["Son"] },
  { code: "MX-TAB", inegi: "27", name: "Tabasco", capital: "Villahermosa", renapo: "TC", aliases: ["Tab"] },
  { code: "MX-TAM", inegi: "28", name: "Tamaulipas", capital: "Ciudad Victoria", renapo: "TS", aliases: ["Tamps"] },
  { code: "MX-TLA", inegi: "29", name: "Tlaxcala", capital: "Tlaxcala", renapo: "TL", aliases: ["Tlax"] },
  {
    code: "MX-VER",
    inegi: "30",
    name: "Veracruz de Ignacio de la Llave",
    capital: "Xalapa",
    renapo: "VZ",
    aliases: ["Veracruz", "Ver"]
  },
  { code: "MX-YUC", inegi: "31", name: "Yucatán", capital: "Mérida", renapo: "YN", aliases: ["Yuc"] },
  { code: "MX-ZAC", inegi: "32", name: "Zacatecas", capital: "Zacatecas", renapo: "ZS", aliases: ["Zac"] }
] as const

export const mexicoStates = guardedPlace(MEXICO_STATES, "a state of Mexico")

/** A state code, as stored and answered (e.g. MX-JAL). */
export const MexicoStateCode = mexicoStates.Code
export type MexicoStateCode = typeof MexicoStateCode.Type

/** A Mexican state given by its ISO code, INEGI number, name (accents optional) or a common alias, decoded to its ISO code. */
export const MexicoState = mexicoStates.schema.annotations({
  identifier: "MexicoState",
  description:
    "A state of Mexico: its ISO 3166-2:MX code (MX-JAL), INEGI number (14), name (Nuevo Leon, Estado de México) or alias (CDMX, Edomex)"
})

export const mexicoStateByCode: ReadonlyMap<string, (typeof MEXICO_STATES)[number]> = new Map(MEXICO_STATES.map((s) => [s.code, s]))

export const isMexicoState = Schema.is(MexicoStateCode)
