import type { MarketSector } from "../../../schema/catalog/MarketSectors.ts"

/** A federal agency (APF): acronym, name, the six characters its buying units' claves start with, how busy it is. */
export interface Agency {
  readonly acronym: string
  readonly name: string
  readonly prefix: string
  readonly weight: number
  /** The share of its units in Mexico City (headquarters); the rest are spread over the states. */
  readonly central: number
  readonly sectors: ReadonlyArray<MarketSector>
  readonly units: ReadonlyArray<string>
}

const HEALTH: ReadonlyArray<MarketSector> = ["medicamentos", "equipo_medico", "limpieza", "alimentos", "mantenimiento"]
const ENERGY: ReadonlyArray<MarketSector> = ["combustibles", "mantenimiento", "construccion", "seguridad", "consultoria"]
const WORKS: ReadonlyArray<MarketSector> = ["construccion", "mantenimiento", "consultoria", "vehiculos"]
const OFFICE: ReadonlyArray<MarketSector> = ["papeleria", "tecnologia", "limpieza", "consultoria", "seguridad"]

export const AGENCIES: readonly [Agency, ...ReadonlyArray<Agency>] = [
  {
    acronym: "IMSS",
    name: "Instituto Mexicano del Seguro Social",
    prefix: "050GYR",
    weight: 16,
    central: 0.15,
    sectors: HEALTH,
    units: [
      "Órgano de Operación Administrativa Desconcentrada",
      "Hospital General de Zona",
      "Unidad Médica de Alta Especialidad",
      "Coordinación de Abastecimiento y Equipamiento"
    ]
  },
  {
    acronym: "ISSSTE",
    name: "Instituto de Seguridad y Servicios Sociales de los Trabajadores del Estado",
    prefix: "051GYN",
    weight: 8,
    central: 0.25,
    sectors: HEALTH,
    units: ["Representación Estatal", "Hospital Regional", "Clínica Hospital", "Subdirección de Abastecimiento"]
  },
  {
    acronym: "IMSS-BIENESTAR",
    name: "Servicios de Salud del Instituto Mexicano del Seguro Social para el Bienestar",
    prefix: "012M7K",
    weight: 5,
    central: 0.2,
    sectors: HEALTH,
    units: ["Coordinación Estatal", "Hospital Rural", "Unidad de Abasto"]
  },
  {
    acronym: "SSA",
    name: "Secretaría de Salud",
    prefix: "012000",
    weight: 4,
    central: 0.6,
    sectors: HEALTH,
    units: ["Dirección General de Recursos Materiales", "Hospital Federal de Referencia", "Instituto Nacional de Salud"]
  },
  {
    acronym: "PEMEX",
    name: "Petróleos Mexicanos",
    prefix: "018T4I",
    weight: 7,
    central: 0.3,
    sectors: ENERGY,
    units: ["Subdirección de Abastecimiento", "Refinería", "Terminal de Almacenamiento y Despacho", "Activo de Producción"]
  },
  {
    acronym: "CFE",
    name: "Comisión Federal de Electricidad",
    prefix: "018TOQ",
    weight: 7,
    central: 0.25,
    sectors: ENERGY,
    units: ["División de Distribución", "Central Termoeléctrica", "Gerencia Regional de Transmisión", "Subgerencia de Abastecimientos"]
  },
  {
    acronym: "SEDENA",
    name: "Secretaría de la Defensa Nacional",
    prefix: "007000",
    weight: 5,
    central: 0.5,
    sectors: ["alimentos", "vehiculos", "combustibles", "construccion", "equipo_medico"],
    units: ["Dirección General de Administración", "Región Militar", "Zona Militar", "Dirección General de Ingenieros"]
  },
  {
    acronym: "SEMAR",
    name: "Secretaría de Marina",
    prefix: "013000",
    weight: 3,
    central: 0.4,
    sectors: ["alimentos", "combustibles", "mantenimiento", "vehiculos"],
    units: ["Dirección General de Servicios", "Región Naval", "Zona Naval", "Astillero de Marina"]
  },
  {
    acronym: "SEP",
    name: "Secretaría de Educación Pública",
    prefix: "011000",
    weight: 4,
    central: 0.6,
    sectors: ["papeleria", "tecnologia", "alimentos", "limpieza", "construccion"],
    units: ["Dirección General de Recursos Materiales y Servicios", "Autoridad Educativa Federal", "Oficina de Representación"]
  },
  {
    acronym: "IPN",
    name: "Instituto Politécnico Nacional",
    prefix: "011B00",
    weight: 2,
    central: 0.7,
    sectors: ["tecnologia", "papeleria", "limpieza", "mantenimiento"],
    units: ["Dirección de Recursos Materiales y Servicios", "Escuela Superior", "Centro de Investigación"]
  },
  {
    acronym: "SICT",
    name: "Secretaría de Infraestructura, Comunicaciones y Transportes",
    prefix: "009000",
    weight: 5,
    central: 0.2,
    sectors: WORKS,
    units: ["Centro SICT", "Dirección General de Carreteras", "Dirección General de Conservación de Carreteras"]
  },
  {
    acronym: "CONAGUA",
    name: "Comisión Nacional del Agua",
    prefix: "016B00",
    weight: 4,
    central: 0.2,
    sectors: WORKS,
    units: ["Organismo de Cuenca", "Dirección Local", "Gerencia de Construcción"]
  },
  {
    acronym: "CAPUFE",
    name: "Caminos y Puentes Federales de Ingresos y Servicios Conexos",
    prefix: "009J0U",
    weight: 2,
    central: 0.3,
    sectors: ["mantenimiento", "construccion", "seguridad", "tecnologia"],
    units: ["Delegación Regional", "Gerencia de Tramo", "Subdirección de Obras"]
  },
  {
    acronym: "SADER",
    name: "Secretaría de Agricultura y Desarrollo Rural",
    prefix: "008000",
    weight: 2,
    central: 0.4,
    sectors: ["alimentos", "vehiculos", "consultoria", "papeleria"],
    units: ["Oficina de Representación", "Dirección General de Administración"]
  },
  {
    acronym: "BIENESTAR",
    name: "Secretaría de Bienestar",
    prefix: "020000",
    weight: 2,
    central: 0.4,
    sectors: ["alimentos", "papeleria", "tecnologia", "consultoria"],
    units: ["Delegación de Programas para el Desarrollo", "Dirección General de Recursos Materiales"]
  },
  {
    acronym: "SHCP",
    name: "Secretaría de Hacienda y Crédito Público",
    prefix: "006000",
    weight: 2,
    central: 0.8,
    sectors: OFFICE,
    units: ["Dirección General de Recursos Materiales", "Unidad de Administración y Finanzas"]
  },
  {
    acronym: "SAT",
    name: "Servicio de Administración Tributaria",
    prefix: "006E00",
    weight: 2,
    central: 0.5,
    sectors: OFFICE,
    units: ["Administración de Recursos Materiales", "Administración Desconcentrada de Servicios al Contribuyente"]
  },
  {
    acronym: "SEGOB",
    name: "Secretaría de Gobernación",
    prefix: "004000",
    weight: 1,
    central: 0.8,
    sectors: OFFICE,
    units: ["Dirección General de Recursos Materiales", "Instituto Nacional de Migración, Oficina de Representación"]
  },
  {
    acronym: "SSPC",
    name: "Secretaría de Seguridad y Protección Ciudadana",
    prefix: "036000",
    weight: 2,
    central: 0.5,
    sectors: ["seguridad", "vehiculos", "combustibles", "tecnologia"],
    units: ["Guardia Nacional, Coordinación Estatal", "Prevención y Readaptación Social", "Dirección General de Recursos Materiales"]
  },
  {
    acronym: "SEMARNAT",
    name: "Secretaría de Medio Ambiente y Recursos Naturales",
    prefix: "016000",
    weight: 1,
    central: 0.5,
    sectors: ["consultoria", "vehiculos", "tecnologia"],
    units: ["Oficina de Representación", "Comisión Nacional Forestal, Gerencia Estatal"]
  },
  {
    acronym: "SE",
    name: "Secretaría de Economía",
    prefix: "010000",
    weight: 1,
    central: 0.8,
    sectors: OFFICE,
    units: ["Dirección General de Recursos Materiales", "Oficina de Representación"]
  }
]

/** State agencies (gobierno estatal, GE): three letters of the clave, name, emphasis. */
export const STATE_AGENCIES: readonly [
  readonly [string, string, ReadonlyArray<MarketSector>, number],
  ...ReadonlyArray<readonly [string, string, ReadonlyArray<MarketSector>, number]>
] = [
  ["SSA", "Servicios de Salud", HEALTH, 5],
  ["SOP", "Secretaría de Infraestructura y Obra Pública", WORKS, 5],
  ["SED", "Secretaría de Educación", ["papeleria", "alimentos", "construccion", "tecnologia"], 3],
  ["SAF", "Secretaría de Administración y Finanzas", OFFICE, 3],
  ["SSP", "Secretaría de Seguridad Pública", ["seguridad", "vehiculos", "combustibles"], 2],
  ["DIF", "Sistema para el Desarrollo Integral de la Familia", ["alimentos", "limpieza", "papeleria"], 2],
  ["CEA", "Comisión Estatal del Agua", WORKS, 2]
]

/** Municipal areas (gobierno municipal, GM). */
export const MUNICIPAL_AREAS: readonly [
  readonly [string, ReadonlyArray<MarketSector>],
  ...ReadonlyArray<readonly [string, ReadonlyArray<MarketSector>]>
] = [
  ["Dirección de Obras Públicas", WORKS],
  ["Dirección de Administración", OFFICE],
  ["Dirección de Servicios Públicos", ["limpieza", "vehiculos", "combustibles", "mantenimiento"]],
  ["Organismo Operador de Agua", WORKS],
  ["Dirección de Seguridad Pública", ["seguridad", "vehiculos", "combustibles"]]
]

/** Municipalities per state beside the capital, for municipal buying units. */
export const MUNICIPALITIES: Readonly<Record<string, ReadonlyArray<string>>> = {
  "MX-CMX": ["Cuauhtémoc", "Iztapalapa", "Gustavo A. Madero", "Coyoacán", "Álvaro Obregón", "Tlalpan", "Benito Juárez", "Miguel Hidalgo"],
  "MX-MEX": [
    "Ecatepec de Morelos",
    "Nezahualcóyotl",
    "Naucalpan de Juárez",
    "Tlalnepantla de Baz",
    "Toluca",
    "Chimalhuacán",
    "Huixquilucan"
  ],
  "MX-JAL": ["Guadalajara", "Zapopan", "San Pedro Tlaquepaque", "Tonalá", "Tlajomulco de Zúñiga", "Puerto Vallarta"],
  "MX-NLE": ["Monterrey", "Guadalupe", "Apodaca", "San Nicolás de los Garza", "General Escobedo", "San Pedro Garza García"],
  "MX-GUA": ["León", "Irapuato", "Celaya", "Salamanca"],
  "MX-PUE": ["Puebla", "Tehuacán", "San Andrés Cholula"],
  "MX-BCN": ["Tijuana", "Mexicali", "Ensenada"],
  "MX-VER": ["Veracruz", "Xalapa", "Coatzacoalcos", "Poza Rica de Hidalgo"],
  "MX-CHH": ["Juárez", "Chihuahua", "Delicias"],
  "MX-SON": ["Hermosillo", "Cajeme", "Nogales"],
  "MX-COA": ["Saltillo", "Torreón", "Monclova"],
  "MX-TAM": ["Reynosa", "Matamoros", "Nuevo Laredo", "Tampico"],
  "MX-SIN": ["Culiacán", "Mazatlán", "Ahome"],
  "MX-QUE": ["Querétaro", "San Juan del Río", "Corregidora"],
  "MX-YUC": ["Mérida", "Valladolid", "Progreso"],
  "MX-ROO": ["Benito Juárez", "Solidaridad", "Othón P. Blanco"]
}
