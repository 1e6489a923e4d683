import { Schema } from "effect"

export const Country = Schema.Literal("CL", "MX").annotations({ description: "CL (Chile) or MX (Mexico)" })
export type Country = typeof Country.Type

export const INDUSTRIES = {
  tecnologia: "Tecnología y software",
  construccion: "Construcción",
  mineria: "Minería",
  retail: "Comercio minorista",
  agroindustria: "Agroindustria",
  logistica: "Transporte y logística",
  salud: "Salud",
  educacion: "Educación",
  servicios_financieros: "Servicios financieros",
  manufactura: "Manufactura",
  energia: "Energía",
  alimentos: "Alimentos y bebidas",
  inmobiliaria: "Inmobiliaria",
  telecomunicaciones: "Telecomunicaciones",
  consultoria: "Consultoría y servicios profesionales"
} as const
export type Industry = keyof typeof INDUSTRIES
const industryKeys = Object.keys(INDUSTRIES) as unknown as readonly [Industry, ...ReadonlyArray<Industry>]
export const Industry = Schema.Literal(...industryKeys).annotations({
  description: `The company's industry: ${industryKeys.join(", ")}`
})

/** Sizes by employees, as stored. */
export const SIZES = {
  micro: { min: 1, max: 9 },
  pequena: { min: 10, max: 49 },
  mediana: { min: 50, max: 199 },
  grande: { min: 200, max: 5000 }
} as const
export const Size = Schema.Literal("micro", "pequena", "mediana", "grande").annotations({
  description: "micro (1–9 employees), pequena (10–49), mediana (50–199), grande (200 or more)"
})
export type Size = typeof Size.Type

export const Seniority = Schema.Literal("c_level", "vp", "director", "manager", "senior", "entry").annotations({
  description: "c_level, vp, director, manager, senior or entry"
})
export type Seniority = typeof Seniority.Type

export const DEPARTMENTS = [
  "direccion",
  "ventas",
  "marketing",
  "operaciones",
  "finanzas",
  "tecnologia",
  "recursos_humanos",
  "legal",
  "compras"
] as const
export const Department = Schema.Literal(...DEPARTMENTS).annotations({ description: `The person's area: ${DEPARTMENTS.join(", ")}` })
export type Department = typeof Department.Type

export const CompanyId = Schema.String.pipe(Schema.pattern(/^co_[a-z0-9]{1,40}$/), Schema.brand("CompanyId")).annotations({
  description: "A company of the directory (co_…)",
  message: () => ({ message: "must be a company id (co_…, from companies_search)", override: true })
})
export type CompanyId = typeof CompanyId.Type

export const PersonId = Schema.String.pipe(Schema.pattern(/^pe_[a-z0-9]{1,40}$/), Schema.brand("PersonId")).annotations({
  description: "A person of the directory (pe_…)",
  message: () => ({ message: "must be a person id (pe_…, from people_search)", override: true })
})
export type PersonId = typeof PersonId.Type

export const ListKind = Schema.Literal("companies", "people").annotations({ description: "What the list holds: companies or people" })
export type ListKind = typeof ListKind.Type

/** A company as the generator makes it and the directory stores it. */
export const CompanyRow = Schema.Struct({
  id: Schema.String,
  country: Country,
  taxId: Schema.String,
  legalName: Schema.String,
  tradeName: Schema.String,
  industry: Industry,
  giro: Schema.NullOr(Schema.String),
  size: Size,
  employees: Schema.Int,
  region: Schema.String,
  city: Schema.String,
  domain: Schema.String,
  foundedYear: Schema.Int,
  revenueEstimate: Schema.Number,
  phone: Schema.NullOr(Schema.String),
  linkedinUrl: Schema.NullOr(Schema.String)
})
export type CompanyRow = typeof CompanyRow.Type

/** A person as the generator makes it and the directory stores it (contact data included: it leaves only through a reveal). */
export const PersonRow = Schema.Struct({
  id: Schema.String,
  companyId: Schema.String,
  firstName: Schema.String,
  lastName: Schema.String,
  fullName: Schema.String,
  title: Schema.String,
  department: Department,
  seniority: Seniority,
  country: Country,
  region: Schema.String,
  email: Schema.NullOr(Schema.String),
  phone: Schema.NullOr(Schema.String),
  linkedinUrl: Schema.NullOr(Schema.String)
})
export type PersonRow = typeof PersonRow.Type
