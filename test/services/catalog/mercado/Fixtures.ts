import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** Valid RFCs (SAT check character), one per fixture party. */
export const RFC = {
  nandu: "CNA0503141I4",
  bajio: "SMB1108028D5",
  perez: "PESJ800101AB6",
  norte: "CNO981123281",
  farmacias: "FUN0101093A9",
  fantasma: "EFA150430166"
} as const

export const LOADED_AT = "2026-11-01T00:00:00.000000Z"

/**
 * A small Mercado data set of explicit rows: 4 suppliers (2 on a risk list not cleared), 2 buying units,
 * 5 procedures, 6 awards, 3 permits, 4 risk records, and its market_dataset row.
 */
export const insertMercado = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`
    INSERT INTO market_suppliers (id, rfc, persona, name, state, size, status, rupc_folio, sector, registered_on) VALUES
      ('sup_1', '${RFC.nandu}', 'moral', 'Constructora Ñandú SA de CV', 'MX-JAL', 'mediana', 'habilitado', 'R-1001', 'construccion', '2010-05-01'),
      ('sup_2', '${RFC.bajio}', 'moral', 'Servicios Médicos del Bajío SA de CV', 'MX-GUA', 'pequena', 'habilitado', NULL, 'medicamentos', '2012-02-03'),
      ('sup_3', '${RFC.perez}', 'fisica', 'Juan Pérez Soto', 'MX-JAL', 'micro', 'habilitado', NULL, 'construccion', '2015-07-09'),
      ('sup_4', '${RFC.norte}', 'moral', 'Combustibles del Norte SA de CV', 'MX-NLE', 'no_mipyme', 'habilitado', 'R-2002', 'combustibles', '2001-01-15');
    INSERT INTO market_units (id, clave, name, agency, agency_name, government, state) VALUES
      ('un_1', '019GYR047', 'Coordinación de Abastecimiento Jalisco', 'IMSS', 'Instituto Mexicano del Seguro Social', 'APF', 'MX-JAL'),
      ('un_2', '006E00001', 'Dirección de Recursos Materiales', 'SAT', 'Servicio de Administración Tributaria', 'APF', 'MX-CMX');
    INSERT INTO market_opportunities (id, number, unit_id, title, procedure_type, law, contract_type, character, form, state, status,
        published_on, opens_on, awarded_on, estimated_amount) VALUES
      ('op_1', 'LO-019GYR047-E1-2024', 'un_1', 'Construcción de clínica en Zapopan', 'licitacion_publica', 'LOPSRM', 'obra_publica',
        'nacional', 'electronica', 'MX-JAL', 'complete', '2024-02-10', '2024-03-01', '2024-03-20', 12000000),
      ('op_2', 'AA-019GYR047-E2-2024', 'un_1', 'Servicio de limpieza hospitalaria', 'adjudicacion_directa', 'LAASSP', 'servicios',
        'nacional', 'electronica', 'MX-JAL', 'complete', '2024-06-05', '2024-06-10', '2024-06-15', 1000000),
      ('op_3', 'IA-006E00001-E3-2025', 'un_2', 'Adquisición de equipo de cómputo', 'invitacion_tres', 'LAASSP', 'adquisiciones',
        'nacional', 'mixta', 'MX-CMX', 'active', '2025-01-15', '2025-02-01', NULL, 2500000),
      ('op_4', 'LA-006E00001-E4-2025', 'un_2', 'Arrendamiento de vehículos utilitarios', 'licitacion_publica', 'LAASSP', 'arrendamientos',
        'internacional', 'electronica', 'MX-CMX', 'cancelled', '2025-03-01', '2025-03-20', NULL, 8000000),
      ('op_5', 'AA-006E00001-E5-2025', 'un_2', 'Suministro de combustible para flotilla', 'adjudicacion_directa', 'LAASSP', 'adquisiciones',
        'nacional', 'presencial', 'MX-CMX', 'complete', '2025-02-01', '2025-02-05', '2025-02-10', 4000000);
    INSERT INTO market_awards (id, opportunity_id, supplier_id, unit_id, contract_code, title, amount, currency, signed_on, starts_on,
        ends_on, status, state, year, procedure_type, contract_type, supplier_size) VALUES
      ('aw_1', 'op_1', 'sup_1', 'un_1', 'C-0001', 'Construcción de clínica', 11500000, 'MXN', '2024-03-25', '2024-04-01', '2025-03-31',
        'expirado', 'MX-JAL', 2024, 'licitacion_publica', 'obra_publica', 'mediana'),
      ('aw_2', 'op_2', 'sup_2', 'un_1', 'C-0002', 'Limpieza hospitalaria', 850000.50, 'MXN', '2024-06-20', '2024-07-01', '2024-12-31',
        'expirado', 'MX-JAL', 2024, 'adjudicacion_directa', 'servicios', 'pequena'),
      ('aw_3', 'op_2', 'sup_3', 'un_1', 'C-0003', 'Limpieza de áreas externas', 120000, 'MXN', '2024-06-20', '2024-07-01', '2024-12-31',
        'expirado', 'MX-JAL', 2024, 'adjudicacion_directa', 'servicios', 'micro'),
      ('aw_4', 'op_1', 'sup_1', 'un_1', 'C-0004', 'Ampliación de clínica', 2000000, 'MXN', '2024-12-01', '2024-12-15', '2025-06-30',
        'activo', 'MX-JAL', 2024, 'licitacion_publica', 'obra_publica', 'mediana'),
      ('aw_5', 'op_5', 'sup_4', 'un_2', 'C-0005', 'Suministro de diésel', 3300000, 'MXN', '2025-02-15', '2025-03-01', '2025-12-31',
        'activo', 'MX-CMX', 2025, 'adjudicacion_directa', 'adquisiciones', 'no_mipyme'),
      ('aw_6', 'op_5', 'sup_1', 'un_2', 'C-0006', 'Suministro de lubricantes', 450000, 'MXN', '2025-02-15', '2025-03-01', '2025-12-31',
        'activo', 'MX-CMX', 2025, 'adjudicacion_directa', 'adquisiciones', 'mediana');
    INSERT INTO market_award_rollup (state, year, contract_type, procedure_type, supplier_size, awards, amount, suppliers)
      SELECT state, year, contract_type, procedure_type, supplier_size, count(*), sum(amount), count(DISTINCT supplier_id)
      FROM market_awards GROUP BY state, year, contract_type, procedure_type, supplier_size;
    INSERT INTO market_permits (id, number, kind, authority, holder_rfc, holder_name, supplier_id, state, status, issued_on, expires_on) VALUES
      ('pm_1', 'PL/5866/EXP/ES/2015', 'cre_petroliferos', 'CRE', '${RFC.norte}', 'Combustibles del Norte SA de CV', 'sup_4', 'MX-NLE',
        'vigente', '2015-06-01', NULL),
      ('pm_2', 'AR12345/2022', 'repse', 'STPS', '${RFC.bajio}', 'Servicios Médicos del Bajío SA de CV', 'sup_2', 'MX-GUA', 'vigente',
        '2022-03-01', '2025-03-01'),
      ('pm_3', '213300201A0001', 'cofepris', 'COFEPRIS', '${RFC.farmacias}', 'Farmacias Unidas SA', NULL, 'MX-CMX', 'vencido',
        '2019-01-01', '2024-01-01');
    INSERT INTO market_risks (id, rfc, name, supplier_id, list, status, authority, published_on, ends_on, amount, detail) VALUES
      ('ri_1', '${RFC.perez}', 'Juan Pérez Soto', 'sup_3', 'sat_69b', 'presunto', 'SAT', '2025-05-01', NULL, NULL, 'Oficio 500-05-2025-1'),
      ('ri_2', '${RFC.norte}', 'Combustibles del Norte SA de CV', 'sup_4', 'sat_69b', 'desvirtuado', 'SAT', '2023-01-10', NULL, NULL,
        'Oficio 500-05-2023-7'),
      ('ri_3', '${RFC.fantasma}', 'Empresa Fantasma SA', NULL, 'sat_69b', 'definitivo', 'SAT', '2024-08-01', NULL, NULL, 'DOF 2024-08-01'),
      ('ri_4', '${RFC.bajio}', 'Servicios Médicos del Bajío SA de CV', 'sup_2', 'sancion', 'multa', 'SABG', '2024-09-15', NULL, 150000,
        'Multa por incumplimiento de contrato');
    INSERT INTO market_dataset (seed, suppliers, awards, first_year, last_year, loaded_at)
      VALUES ('fixture', 4, 6, 2024, 2025, '${LOADED_AT}');
  `)
})

/** What a reload does to the stamp cursors are bound to. */
export const reloadDataset = (loadedAt: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE market_dataset SET loaded_at = ${loadedAt}::timestamptz`)
