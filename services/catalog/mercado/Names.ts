import type { MarketSector } from "../../../schema/catalog/MarketSectors.ts"
import type { NonEmpty } from "../../upstream/Prng.ts"

/** The first words of a supplier's name (persona moral) in each sector. */
export const SECTOR_LEADS: Record<MarketSector, NonEmpty<string>> = {
  medicamentos: ["Farmacéutica", "Distribuidora Farmacéutica", "Laboratorios", "Medicamentos", "Farmacos", "Comercializadora Médica"],
  equipo_medico: ["Equipos Médicos", "Instrumental Médico", "Biomédica", "Tecnología Hospitalaria", "Suministros Hospitalarios"],
  construccion: ["Constructora", "Grupo Constructor", "Edificaciones", "Ingeniería y Construcción", "Obras y Proyectos", "Infraestructura"],
  mantenimiento: ["Mantenimiento Integral", "Servicios Industriales", "Conservación y Mantenimiento", "Electromecánica"],
  tecnologia: ["Soluciones Tecnológicas", "Sistemas", "Informática", "Redes y Telecomunicaciones", "Cómputo", "Desarrollo de Software"],
  limpieza: ["Servicios de Limpieza", "Limpieza Profesional", "Higiene Integral", "Químicos y Limpieza"],
  alimentos: ["Alimentos", "Abarrotes", "Comercializadora de Alimentos", "Distribuidora de Víveres", "Comedores Industriales"],
  papeleria: ["Papelería", "Suministros de Oficina", "Artículos de Oficina", "Impresos", "Comercializadora de Papel"],
  vehiculos: ["Automotriz", "Autos y Camiones", "Refacciones", "Flotillas", "Arrendadora Vehicular"],
  combustibles: ["Gasolinera", "Servicio", "Combustibles", "Gas y Combustibles", "Lubricantes", "Energéticos"],
  seguridad: ["Seguridad Privada", "Protección y Vigilancia", "Seguridad Integral", "Custodia"],
  consultoria: ["Consultores", "Asesoría Integral", "Consultoría", "Despacho", "Estudios y Proyectos"]
}

export const NAME_TAILS: NonEmpty<string> = [
  "del Centro",
  "del Norte",
  "del Pacífico",
  "del Golfo",
  "del Bajío",
  "del Sureste",
  "Azteca",
  "Anáhuac",
  "Mexicana",
  "Nacional",
  "Integral",
  "Global",
  "Continental",
  "Moderna",
  "Industrial",
  "Premier",
  "Alfa",
  "Omega",
  "Delta",
  "Sigma",
  "Quetzal",
  "Jaguar",
  "Maya",
  "Olmeca",
  "Tolteca",
  "Zapoteca",
  "Sierra Madre",
  "Popocatépetl",
  "Cumbres",
  "Valle",
  "Laguna",
  "Horizonte",
  "Aurora",
  "Zenit",
  "Vértice",
  "Prisma",
  "Ámbar",
  "Cobalto",
  "Titanio",
  "Platino",
  "Imperial",
  "Real",
  "Victoria",
  "Independencia",
  "Reforma",
  "Insurgentes",
  "Chapultepec",
  "Tepeyac",
  "Anzures",
  "Polanco",
  "San Ángel",
  "Santa Fe",
  "Lomas",
  "Juárez",
  "Hidalgo",
  "Morelos",
  "Zaragoza",
  "Allende",
  "Guerrero",
  "Cuauhtémoc",
  "Itzel",
  "Xochitl",
  "Citlali",
  "Yaretzi",
  "Tonatiuh",
  "Quiroga",
  "Soluciones",
  "Asociados",
  "Hermanos",
  "y Compañía",
  "Plus",
  "Pro",
  "Express",
  "Corporativo",
  "Grupo",
  "Integradora"
]

export const MORAL_SUFFIXES: NonEmpty<readonly [string, number]> = [
  ["S.A. de C.V.", 60],
  ["S. de R.L. de C.V.", 25],
  ["S.A.P.I. de C.V.", 10],
  ["S.C.", 5]
]

/** Contract titles per sector; `{x}` is filled with one of the sector's objects. */
export const TITLES: Record<MarketSector, { readonly forms: NonEmpty<string>; readonly objects: NonEmpty<string> }> = {
  medicamentos: {
    forms: ["Adquisición de {x}", "Compra consolidada de {x}", "Suministro de {x}", "Abasto de {x} para unidades médicas"],
    objects: [
      "medicamentos del grupo 010",
      "medicamentos oncológicos",
      "material de curación",
      "vacunas",
      "insulinas y antidiabéticos",
      "antibióticos",
      "medicamentos controlados",
      "soluciones electrolíticas",
      "medicamentos de patente",
      "medicamentos genéricos",
      "antirretrovirales",
      "material de osteosíntesis",
      "reactivos de laboratorio"
    ]
  },
  equipo_medico: {
    forms: ["Adquisición de {x}", "Arrendamiento de {x}", "Mantenimiento preventivo y correctivo de {x}", "Servicio integral de {x}"],
    objects: [
      "equipo médico",
      "equipo de rayos X",
      "tomógrafos",
      "ventiladores mecánicos",
      "monitores de signos vitales",
      "equipo de hemodiálisis",
      "instrumental quirúrgico",
      "mobiliario hospitalario",
      "equipo de laboratorio clínico",
      "ultrasonidos",
      "camas hospitalarias"
    ]
  },
  construccion: {
    forms: ["Construcción de {x}", "Ampliación de {x}", "Rehabilitación de {x}", "Obra pública para {x}", "Modernización de {x}"],
    objects: [
      "camino rural",
      "puente vehicular",
      "centro de salud",
      "escuela primaria",
      "red de agua potable",
      "drenaje sanitario",
      "planta de tratamiento de aguas residuales",
      "pavimentación con concreto hidráulico",
      "hospital general",
      "unidad deportiva",
      "carretera federal",
      "bordo de protección",
      "libramiento",
      "edificio administrativo",
      "mercado municipal"
    ]
  },
  mantenimiento: {
    forms: [
      "Mantenimiento preventivo y correctivo de {x}",
      "Servicio de mantenimiento a {x}",
      "Conservación de {x}",
      "Rehabilitación de {x}"
    ],
    objects: [
      "inmuebles",
      "equipos de aire acondicionado",
      "subestaciones eléctricas",
      "elevadores",
      "plantas de emergencia",
      "calderas",
      "instalaciones hidrosanitarias",
      "áreas verdes",
      "equipo de bombeo",
      "impermeabilización de azoteas",
      "pintura de instalaciones"
    ]
  },
  tecnologia: {
    forms: ["Adquisición de {x}", "Arrendamiento de {x}", "Servicio administrado de {x}", "Licenciamiento de {x}", "Contratación de {x}"],
    objects: [
      "equipo de cómputo",
      "servidores y almacenamiento",
      "licencias de software",
      "servicios de nube",
      "red de datos",
      "telefonía IP",
      "enlaces de telecomunicaciones",
      "impresión y digitalización",
      "mesa de servicio",
      "desarrollo de sistemas",
      "ciberseguridad",
      "equipo de videovigilancia"
    ]
  },
  limpieza: {
    forms: ["Servicio de {x}", "Contratación del servicio de {x}", "Adquisición de {x}"],
    objects: [
      "limpieza integral de inmuebles",
      "limpieza de unidades médicas",
      "fumigación y control de plagas",
      "recolección de residuos",
      "manejo de residuos peligrosos biológico-infecciosos",
      "lavandería hospitalaria",
      "artículos de limpieza",
      "productos de higiene"
    ]
  },
  alimentos: {
    forms: ["Adquisición de {x}", "Servicio de {x}", "Suministro de {x}"],
    objects: [
      "víveres",
      "alimentación para pacientes",
      "comedor para personal",
      "desayunos escolares",
      "despensas",
      "leche y derivados",
      "abarrotes",
      "frutas y verduras",
      "cárnicos",
      "raciones alimenticias",
      "agua purificada"
    ]
  },
  papeleria: {
    forms: ["Adquisición de {x}", "Suministro de {x}", "Servicio de {x}"],
    objects: [
      "material de oficina",
      "papelería",
      "consumibles de cómputo",
      "tóner y cartuchos",
      "formatos impresos",
      "libros de texto",
      "impresión de boletas",
      "mobiliario de oficina",
      "material didáctico"
    ]
  },
  vehiculos: {
    forms: ["Adquisición de {x}", "Arrendamiento de {x}", "Mantenimiento de {x}", "Suministro de {x}"],
    objects: [
      "vehículos utilitarios",
      "ambulancias",
      "patrullas",
      "camiones recolectores",
      "refacciones automotrices",
      "llantas",
      "parque vehicular",
      "maquinaria pesada",
      "autobuses",
      "motocicletas"
    ]
  },
  combustibles: {
    forms: ["Suministro de {x}", "Adquisición de {x}", "Servicio de {x}"],
    objects: [
      "gasolina y diésel",
      "combustible mediante tarjetas electrónicas",
      "gas LP",
      "lubricantes",
      "turbosina",
      "combustóleo",
      "gas natural",
      "vales de combustible"
    ]
  },
  seguridad: {
    forms: ["Servicio de {x}", "Contratación del servicio de {x}", "Adquisición de {x}"],
    objects: [
      "seguridad y vigilancia",
      "custodia de valores",
      "monitoreo de alarmas",
      "vigilancia intramuros",
      "uniformes y equipo táctico",
      "chalecos balísticos",
      "control de accesos",
      "traslado de valores"
    ]
  },
  consultoria: {
    forms: ["Servicios de {x}", "Contratación de {x}", "Estudio de {x}", "Servicios profesionales de {x}"],
    objects: [
      "consultoría administrativa",
      "auditoría externa",
      "asesoría jurídica",
      "capacitación",
      "evaluación de programas",
      "estudios de preinversión",
      "supervisión de obra",
      "proyecto ejecutivo",
      "estudios de impacto ambiental",
      "servicios actuariales",
      "diseño de campañas de comunicación"
    ]
  }
}
