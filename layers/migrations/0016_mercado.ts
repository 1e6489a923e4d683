import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Mercado: Mexican public procurement, shared by every workspace and loaded by `brein seed`. Suppliers
 * (RFC, state, size), buying units, opportunities (procedures), awards with their contracts (MXN),
 * permits and risk records (SAT 69-B and 69, sanctions). States are ISO 3166-2:MX codes (`MX-JAL`),
 * the one guarded list in `schema/geo/MexicoStates.ts`. `market_award_rollup` holds the awards summed
 * by state × year × contract type × procedure type × supplier size, rebuilt by every load, so an
 * aggregate over those dimensions reads a few thousand rows whatever the size of the data set.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
    CREATE TABLE market_suppliers (
      id text PRIMARY KEY,
      rfc text NOT NULL UNIQUE,
      persona text NOT NULL CHECK (persona IN ('moral', 'fisica')),
      name text NOT NULL,
      state text NOT NULL,
      size text NOT NULL CHECK (size IN ('micro', 'pequena', 'mediana', 'no_mipyme')),
      status text NOT NULL CHECK (status IN ('habilitado', 'inhabilitado', 'suspendido')),
      rupc_folio text,
      sector text NOT NULL,
      registered_on date NOT NULL,
      name_folded text GENERATED ALWAYS AS (brein_fold(name)) STORED
    );
    CREATE INDEX market_suppliers_state ON market_suppliers (state, size);
    CREATE INDEX market_suppliers_sector ON market_suppliers (sector, state);
    CREATE INDEX market_suppliers_name ON market_suppliers USING gin (name_folded gin_trgm_ops);

    CREATE TABLE market_units (
      id text PRIMARY KEY,
      clave text NOT NULL UNIQUE,
      name text NOT NULL,
      agency text NOT NULL,
      agency_name text NOT NULL,
      government text NOT NULL CHECK (government IN ('APF', 'GE', 'GM')),
      state text NOT NULL
    );

    CREATE TABLE market_opportunities (
      id text PRIMARY KEY,
      number text NOT NULL UNIQUE,
      unit_id text NOT NULL REFERENCES market_units (id),
      title text NOT NULL,
      procedure_type text NOT NULL CHECK (procedure_type IN ('licitacion_publica', 'invitacion_tres', 'adjudicacion_directa')),
      law text NOT NULL CHECK (law IN ('LAASSP', 'LOPSRM')),
      contract_type text NOT NULL CHECK (
        contract_type IN ('adquisiciones', 'servicios', 'obra_publica', 'servicios_obra', 'arrendamientos')
      ),
      character text NOT NULL CHECK (character IN ('nacional', 'internacional', 'internacional_tlc')),
      form text NOT NULL CHECK (form IN ('presencial', 'electronica', 'mixta')),
      state text NOT NULL,
      status text NOT NULL CHECK (status IN ('active', 'complete', 'cancelled', 'unsuccessful')),
      published_on date NOT NULL,
      opens_on date NOT NULL,
      awarded_on date,
      estimated_amount numeric(16, 2) NOT NULL CHECK (estimated_amount > 0),
      title_folded text GENERATED ALWAYS AS (brein_fold(title)) STORED
    );
    CREATE INDEX market_opportunities_published ON market_opportunities (published_on DESC, id DESC);
    CREATE INDEX market_opportunities_state ON market_opportunities (state, published_on DESC);
    CREATE INDEX market_opportunities_unit ON market_opportunities (unit_id);
    CREATE INDEX market_opportunities_title ON market_opportunities USING gin (title_folded gin_trgm_ops);

    CREATE TABLE market_awards (
      id text PRIMARY KEY,
      opportunity_id text NOT NULL REFERENCES market_opportunities (id),
      supplier_id text NOT NULL REFERENCES market_suppliers (id),
      unit_id text NOT NULL REFERENCES market_units (id),
      contract_code text NOT NULL UNIQUE,
      title text NOT NULL,
      amount numeric(16, 2) NOT NULL CHECK (amount > 0),
      currency text NOT NULL CHECK (currency = 'MXN'),
      signed_on date NOT NULL,
      starts_on date NOT NULL,
      ends_on date NOT NULL CHECK (ends_on >= starts_on),
      status text NOT NULL CHECK (status IN ('activo', 'expirado', 'cancelado')),
      state text NOT NULL,
      year integer NOT NULL,
      procedure_type text NOT NULL,
      contract_type text NOT NULL,
      supplier_size text NOT NULL
    );
    CREATE INDEX market_awards_signed ON market_awards (signed_on DESC, id DESC);
    CREATE INDEX market_awards_supplier ON market_awards (supplier_id, signed_on DESC);
    CREATE INDEX market_awards_unit ON market_awards (unit_id, signed_on DESC);
    CREATE INDEX market_awards_state ON market_awards (state, signed_on DESC);
    CREATE INDEX market_awards_opportunity ON market_awards (opportunity_id);

    CREATE TABLE market_award_rollup (
      state text NOT NULL,
      year integer NOT NULL,
      contract_type text NOT NULL,
      procedure_type text NOT NULL,
      supplier_size text NOT NULL,
      awards bigint NOT NULL,
      amount numeric(20, 2) NOT NULL,
      suppliers bigint NOT NULL,
      PRIMARY KEY (state, year, contract_type, procedure_type, supplier_size)
    );

    CREATE TABLE market_permits (
      id text PRIMARY KEY,
      number text NOT NULL UNIQUE,
      kind text NOT NULL CHECK (kind IN ('cre_petroliferos', 'repse', 'cofepris', 'semarnat')),
      authority text NOT NULL,
      holder_rfc text NOT NULL,
      holder_name text NOT NULL,
      supplier_id text REFERENCES market_suppliers (id),
      state text NOT NULL,
      status text NOT NULL CHECK (status IN ('vigente', 'suspendido', 'cancelado', 'vencido')),
      issued_on date NOT NULL,
      expires_on date
    );
    CREATE INDEX market_permits_holder ON market_permits (holder_rfc);
    CREATE INDEX market_permits_kind ON market_permits (kind, state, issued_on DESC);

    CREATE TABLE market_risks (
      id text PRIMARY KEY,
      rfc text NOT NULL,
      name text NOT NULL,
      supplier_id text REFERENCES market_suppliers (id),
      list text NOT NULL CHECK (list IN ('sat_69b', 'sat_69', 'sancion')),
      status text NOT NULL CHECK (
        status IN (
          'presunto', 'desvirtuado', 'definitivo', 'sentencia_favorable',
          'firmes', 'exigibles', 'no_localizados', 'cancelados', 'sentencias',
          'multa', 'inhabilitacion'
        )
      ),
      authority text NOT NULL,
      published_on date NOT NULL,
      ends_on date,
      amount numeric(16, 2),
      detail text NOT NULL
    );
    CREATE INDEX market_risks_rfc ON market_risks (rfc);
    CREATE INDEX market_risks_list ON market_risks (list, status, published_on DESC);

    CREATE TABLE market_dataset (
      only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
      seed text NOT NULL,
      suppliers integer NOT NULL,
      awards integer NOT NULL,
      first_year integer NOT NULL,
      last_year integer NOT NULL,
      loaded_at timestamptz NOT NULL
    );
  `))
