import type { Rut } from "../../schema/upstream/Rut.ts"
import { rutFromBody } from "../../schema/upstream/Rut.ts"
import type { NonEmpty, Prng } from "./Prng.ts"

export interface Counterparty {
  readonly rut: Rut
  readonly nombre: string
}

const rubros: NonEmpty<string> = [
  "Comercial",
  "Constructora",
  "Transportes",
  "Inversiones",
  "Servicios",
  "Distribuidora",
  "Inmobiliaria",
  "Agrícola",
  "Ingeniería",
  "Importadora",
  "Consultora",
  "Logística",
  "Alimentos",
  "Tecnología",
  "Maderas",
  "Ferretería"
]

const lugares: NonEmpty<string> = [
  "Los Robles",
  "Aurora",
  "Andes",
  "del Pacífico",
  "Santa Elena",
  "Austral",
  "Cordillera",
  "Los Aromos",
  "El Roble",
  "Atacama",
  "Patagonia",
  "Bío Bío",
  "San Cristóbal",
  "Quillota",
  "Maule",
  "Araucanía",
  "Valle Central",
  "del Sur",
  "Norte Grande",
  "Los Lagos",
  "Lo Valledor",
  "Mirador",
  "Tres Ríos",
  "La Estrella"
]

const formas: NonEmpty<readonly [string, number]> = [["SpA", 40], ["Ltda", 30], ["S.A.", 20], ["E.I.R.L.", 10]]

const nombres: NonEmpty<string> = [
  "Juan",
  "María",
  "José",
  "Francisca",
  "Luis",
  "Camila",
  "Pedro",
  "Valentina",
  "Carlos",
  "Javiera",
  "Jorge",
  "Constanza"
]

const apellidos: NonEmpty<string> = [
  "González",
  "Muñoz",
  "Rojas",
  "Díaz",
  "Pérez",
  "Soto",
  "Contreras",
  "Silva",
  "Martínez",
  "Sepúlveda",
  "Morales",
  "Rodríguez",
  "López",
  "Fuentes",
  "Hernández",
  "Torres",
  "Araya",
  "Flores",
  "Espinoza",
  "Valenzuela"
]

export const ADUANA: Counterparty = { rut: rutFromBody(60_805_000), nombre: "Servicio Nacional de Aduanas" }

export const companies = (p: Prng, count: number, exclude: string): ReadonlyArray<Counterparty> => {
  const taken = new Set<string>([exclude])
  const out: Array<Counterparty> = []
  while (out.length < count) {
    const rut = rutFromBody(p.int(76_000_000, 78_999_999))
    if (taken.has(rut)) continue
    taken.add(rut)
    out.push({ rut, nombre: `${p.pick(rubros)} ${p.pick(lugares)} ${p.weighted(formas)}` })
  }
  return out
}

export const persons = (p: Prng, count: number): ReadonlyArray<Counterparty> =>
  Array.from({ length: count }, () => ({
    rut: rutFromBody(p.int(5_000_000, 25_000_000)),
    nombre: `${p.pick(nombres)} ${p.pick(apellidos)} ${p.pick(apellidos)}`
  }))

/** Zipf-like choice: a few counterparts concentrate most documents. */
export const pickFrequent = <A>(p: Prng, items: ReadonlyArray<A>, fallback: A): A => {
  const weights = items.map((_, i) => 1 / (i + 1))
  const total = weights.reduce((a, b) => a + b, 0)
  let roll = p.next() * total
  for (let i = 0; i < items.length; i++) {
    roll -= weights[i] ?? 0
    if (roll < 0) return items[i] ?? fallback
  }
  return items[items.length - 1] ?? fallback
}
