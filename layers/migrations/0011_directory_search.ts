import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Searching the directory by index: names and titles through trigrams of their folded form (lower case,
 * no accents: `brein_fold`, IMMUTABLE so a stored column and an index can hold it; unaccent itself is
 * only STABLE), the filters through btree indexes that also give the keyset order (id). The folded
 * form is stored, not only indexed: a bitmap scan rechecks every candidate row, and unaccent per row
 * would cost more than the rest of the query.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
    CREATE EXTENSION IF NOT EXISTS unaccent;
    CREATE EXTENSION IF NOT EXISTS pg_trgm;
    CREATE FUNCTION brein_fold(text) RETURNS text
      LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
      RETURN lower(unaccent('unaccent'::regdictionary, $1));
    ALTER TABLE companies ADD COLUMN name_folded text GENERATED ALWAYS AS (brein_fold(legal_name)) STORED;
    ALTER TABLE people ADD COLUMN title_folded text GENERATED ALWAYS AS (brein_fold(title)) STORED,
      ADD COLUMN name_folded text GENERATED ALWAYS AS (brein_fold(full_name)) STORED;
    CREATE INDEX companies_name_trgm ON companies USING gin (name_folded gin_trgm_ops);
    CREATE INDEX companies_country ON companies (country, id);
    CREATE INDEX companies_region ON companies (region, id);
    CREATE INDEX companies_industry ON companies (industry, id);
    CREATE INDEX companies_size ON companies (size, id);
    CREATE INDEX companies_employees ON companies (employees);
    CREATE INDEX people_title_trgm ON people USING gin (title_folded gin_trgm_ops);
    CREATE INDEX people_name_trgm ON people USING gin (name_folded gin_trgm_ops);
    CREATE INDEX people_seniority ON people (seniority, id);
    CREATE INDEX people_department ON people (department, id);
    CREATE INDEX people_region ON people (region, id);
    CREATE INDEX list_items_position ON list_items (list_id, position);
  `))
