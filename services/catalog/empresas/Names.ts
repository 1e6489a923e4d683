import type { Department, Industry, Seniority } from "../../../schema/catalog/Directory.ts"
import type { NonEmpty } from "../../upstream/Prng.ts"

/** Words a company of each industry is named with (the first word leads, the second qualifies). */
export const INDUSTRY_WORDS: Record<Industry, { readonly lead: NonEmpty<string>; readonly giro: string }> = {
  tecnologia: {
    lead: ["Soluciones Digitales", "Tecnologías", "Software", "Sistemas", "Datos", "Informática"],
    giro: "Desarrollo de software y servicios informáticos"
  },
  construccion: {
    lead: ["Constructora", "Ingeniería y Construcción", "Obras Civiles", "Edificaciones", "Montajes"],
    giro: "Construcción de edificios y obras de ingeniería civil"
  },
  mineria: {
    lead: ["Minera", "Servicios Mineros", "Perforaciones", "Exploraciones"],
    giro: "Extracción de minerales y servicios a la minería"
  },
  retail: { lead: ["Comercial", "Distribuidora", "Tiendas", "Importadora"], giro: "Venta al por menor en comercios no especializados" },
  agroindustria: {
    lead: ["Agrícola", "Agroindustrial", "Frutícola", "Viñedos", "Hortícola"],
    giro: "Cultivo y procesamiento de productos agrícolas"
  },
  logistica: {
    lead: ["Transportes", "Logística", "Fletes", "Distribución y Bodegaje"],
    giro: "Transporte de carga por carretera y almacenamiento"
  },
  salud: { lead: ["Clínica", "Centro Médico", "Laboratorio", "Servicios de Salud"], giro: "Actividades de hospitales y clínicas privadas" },
  educacion: { lead: ["Instituto", "Colegio", "Centro de Formación", "Capacitación"], giro: "Enseñanza y capacitación" },
  servicios_financieros: {
    lead: ["Inversiones", "Factoring", "Asesorías Financieras", "Capitales"],
    giro: "Servicios financieros y de inversión"
  },
  manufactura: {
    lead: ["Industrias", "Manufacturas", "Metalúrgica", "Plásticos", "Fábrica de Envases"],
    giro: "Fabricación de productos metálicos y plásticos"
  },
  energia: { lead: ["Energía", "Eléctrica", "Solar", "Generadora"], giro: "Generación y distribución de energía eléctrica" },
  alimentos: { lead: ["Alimentos", "Panificadora", "Lácteos", "Cárnicos", "Bebidas"], giro: "Elaboración de productos alimenticios" },
  inmobiliaria: {
    lead: ["Inmobiliaria", "Desarrollos Inmobiliarios", "Gestión Inmobiliaria"],
    giro: "Actividades inmobiliarias con bienes propios o arrendados"
  },
  telecomunicaciones: { lead: ["Telecomunicaciones", "Redes", "Conectividad", "Fibra"], giro: "Servicios de telecomunicaciones" },
  consultoria: {
    lead: ["Consultores", "Asesorías", "Compañía de Servicios Profesionales", "Gestión y Estrategia"],
    giro: "Actividades de consultoría de gestión"
  }
}

export const NAME_WORDS: NonEmpty<string> = [
  "Andina",
  "del Pacífico",
  "Los Robles",
  "Austral",
  "Cordillera",
  "del Sur",
  "Norte Grande",
  "Araucaria",
  "Patagonia",
  "Los Andes",
  "San Martín",
  "Santa Elena",
  "Valle Central",
  "Costa Azul",
  "Maipo",
  "Bío Bío",
  "Atacama",
  "Volcán",
  "El Roble",
  "La Montaña",
  "Aztlán",
  "del Bajío",
  "Sierra Madre",
  "Anáhuac",
  "Quetzal",
  "Maya",
  "del Golfo",
  "Pacífico Norte",
  "Río Bravo",
  "Monte Albán",
  "Nova",
  "Horizonte",
  "Cóndor",
  "Halcón",
  "Puma",
  "Colibrí",
  "Águila",
  "Roble",
  "Cedro",
  "Alerce",
  "Innova",
  "Prisma",
  "Vértice",
  "Orión",
  "Génesis",
  "Núcleo",
  "Óptima",
  "Éxito",
  "Unión",
  "Progreso",
  "Hermanos Pérez",
  "Familia Muñoz",
  "González e Hijos",
  "Rodríguez",
  "Castillo",
  "Ibáñez",
  "Peña",
  "Zúñiga",
  "Núñez",
  "Cañas"
]

export const LEGAL_SUFFIX = {
  CL: [["SpA", 40], ["Ltda.", 30], ["S.A.", 20], ["E.I.R.L.", 10]],
  MX: [["S.A. de C.V.", 60], ["S. de R.L. de C.V.", 25], ["S.A.P.I. de C.V.", 15]]
} as const

export const FIRST_NAMES = {
  CL: [
    "José",
    "Juan",
    "Luis",
    "Carlos",
    "Jorge",
    "Francisco",
    "Manuel",
    "Cristián",
    "Rodrigo",
    "Felipe",
    "Matías",
    "Sebastián",
    "Diego",
    "Ignacio",
    "Tomás",
    "Andrés",
    "Patricio",
    "Claudio",
    "María",
    "Ana",
    "Carolina",
    "Francisca",
    "Camila",
    "Javiera",
    "Constanza",
    "Valentina",
    "Catalina",
    "Paula",
    "Daniela",
    "Fernanda",
    "Macarena",
    "Bárbara",
    "Sofía",
    "Isidora",
    "Verónica",
    "Marcela"
  ],
  MX: [
    "José",
    "Juan",
    "Luis",
    "Carlos",
    "Jorge",
    "Miguel Ángel",
    "Alejandro",
    "Fernando",
    "Ricardo",
    "Eduardo",
    "Roberto",
    "Arturo",
    "Héctor",
    "Raúl",
    "Óscar",
    "Jesús",
    "Guadalupe",
    "María",
    "Ana",
    "Laura",
    "Gabriela",
    "Adriana",
    "Mariana",
    "Alejandra",
    "Verónica",
    "Patricia",
    "Daniela",
    "Fernanda",
    "Ximena",
    "Regina",
    "Andrea",
    "Claudia",
    "Leticia",
    "Rocío",
    "Itzel",
    "Citlali"
  ]
} as const

export const LAST_NAMES = {
  CL: [
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
    "Valenzuela",
    "Castillo",
    "Tapia",
    "Reyes",
    "Gutiérrez",
    "Castro",
    "Pizarro",
    "Álvarez",
    "Vásquez",
    "Sánchez",
    "Fernández",
    "Ramírez",
    "Carrasco",
    "Gómez",
    "Cortés",
    "Herrera",
    "Núñez"
  ],
  MX: [
    "Hernández",
    "García",
    "Martínez",
    "López",
    "González",
    "Pérez",
    "Rodríguez",
    "Sánchez",
    "Ramírez",
    "Cruz",
    "Flores",
    "Gómez",
    "Morales",
    "Vázquez",
    "Reyes",
    "Jiménez",
    "Torres",
    "Díaz",
    "Gutiérrez",
    "Ruiz",
    "Mendoza",
    "Aguilar",
    "Ortiz",
    "Moreno",
    "Castillo",
    "Romero",
    "Álvarez",
    "Méndez",
    "Chávez",
    "Rivera",
    "Juárez",
    "Ramos",
    "Domínguez",
    "Herrera",
    "Medina",
    "Castañeda"
  ]
} as const

type Role = readonly [title: string, department: Department, seniority: Seniority]

/** Roles by how senior they are; a company's first person is its general manager. */
export const ROLES: NonEmpty<readonly [Role, number]> = [
  [["Gerente General", "direccion", "c_level"], 4],
  [["Director de Finanzas", "finanzas", "c_level"], 3],
  [["Director de Tecnología", "tecnologia", "c_level"], 3],
  [["Director Comercial", "ventas", "c_level"], 3],
  [["Vicepresidente de Operaciones", "operaciones", "vp"], 2],
  [["Vicepresidente Comercial", "ventas", "vp"], 2],
  [["Gerente de Ventas", "ventas", "director"], 5],
  [["Gerente de Marketing", "marketing", "director"], 4],
  [["Gerente de Operaciones", "operaciones", "director"], 4],
  [["Gerente de Recursos Humanos", "recursos_humanos", "director"], 3],
  [["Gerente de Administración y Finanzas", "finanzas", "director"], 4],
  [["Fiscal", "legal", "director"], 1],
  [["Jefe de Compras", "compras", "manager"], 4],
  [["Jefe de Ventas", "ventas", "manager"], 5],
  [["Jefe de Proyectos", "operaciones", "manager"], 4],
  [["Jefe de Tecnología", "tecnologia", "manager"], 3],
  [["Subgerente Comercial", "ventas", "manager"], 3],
  [["Contador General", "finanzas", "senior"], 3],
  [["Ingeniero de Software Senior", "tecnologia", "senior"], 3],
  [["Ejecutivo Comercial Senior", "ventas", "senior"], 4],
  [["Abogado", "legal", "senior"], 1],
  [["Analista de Marketing", "marketing", "entry"], 3],
  [["Ejecutivo de Ventas", "ventas", "entry"], 5],
  [["Analista de Compras", "compras", "entry"], 2],
  [["Asistente de Recursos Humanos", "recursos_humanos", "entry"], 2],
  [["Analista Contable", "finanzas", "entry"], 3]
]

/** Cities beyond the capital for the regions where most companies are. */
export const MORE_CITIES: Readonly<Record<string, NonEmpty<string>>> = {
  "CL-RM": ["Santiago", "Providencia", "Las Condes", "Vitacura", "Ñuñoa", "Maipú", "Puente Alto", "Quilicura", "Pudahuel", "La Florida"],
  "CL-VS": ["Valparaíso", "Viña del Mar", "Quilpué", "San Antonio", "Los Andes"],
  "CL-BI": ["Concepción", "Talcahuano", "Los Ángeles", "Chiguayante", "Coronel"],
  "CL-AN": ["Antofagasta", "Calama", "Mejillones"],
  "CL-CO": ["La Serena", "Coquimbo", "Ovalle"],
  "CL-LL": ["Puerto Montt", "Osorno", "Castro", "Puerto Varas"],
  "MX-CMX": ["Ciudad de México", "Miguel Hidalgo", "Cuauhtémoc", "Benito Juárez", "Álvaro Obregón", "Coyoacán"],
  "MX-MEX": ["Toluca", "Naucalpan", "Tlalnepantla", "Ecatepec", "Huixquilucan", "Metepec"],
  "MX-JAL": ["Guadalajara", "Zapopan", "Tlaquepaque", "Puerto Vallarta", "Tonalá"],
  "MX-NLE": ["Monterrey", "San Pedro Garza García", "Apodaca", "Guadalupe", "Santa Catarina"],
  "MX-GUA": ["León", "Guanajuato", "Irapuato", "Celaya"],
  "MX-PUE": ["Puebla", "Cholula", "Tehuacán"],
  "MX-BCN": ["Tijuana", "Mexicali", "Ensenada"]
}

/** Phone area codes of Mexican states where many companies are (others get a generic one). */
export const MX_AREA: Readonly<Record<string, string>> = {
  "MX-CMX": "55",
  "MX-MEX": "55",
  "MX-JAL": "33",
  "MX-NLE": "81",
  "MX-PUE": "222",
  "MX-GUA": "477",
  "MX-BCN": "664"
}
