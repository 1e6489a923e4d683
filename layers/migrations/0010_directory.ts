import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The directory the Brein catalog searches: companies and their people in Chile and Mexico (shared by
 * every workspace, loaded by `brein seed`), and each workspace's saved lists of them. Contact data
 * (email, phone) sits beside the person and leaves only through a reveal.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
    CREATE TABLE companies (
      id text PRIMARY KEY,
      country text NOT NULL CHECK (country IN ('CL', 'MX')),
      tax_id text NOT NULL UNIQUE,
      legal_name text NOT NULL,
      trade_name text NOT NULL,
      industry text NOT NULL,
      giro text,
      size text NOT NULL CHECK (size IN ('micro', 'pequena', 'mediana', 'grande')),
      employees integer NOT NULL CHECK (employees > 0),
      region text NOT NULL,
      city text NOT NULL,
      domain text NOT NULL,
      founded_year integer NOT NULL,
      revenue_estimate bigint NOT NULL,
      phone text,
      linkedin_url text
    );
    CREATE TABLE people (
      id text PRIMARY KEY,
      company_id text NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
      first_name text NOT NULL,
      last_name text NOT NULL,
      full_name text NOT NULL,
      title text NOT NULL,
      department text NOT NULL,
      seniority text NOT NULL CHECK (seniority IN ('c_level', 'vp', 'director', 'manager', 'senior', 'entry')),
      country text NOT NULL CHECK (country IN ('CL', 'MX')),
      region text NOT NULL,
      email text,
      phone text,
      linkedin_url text
    );
    CREATE INDEX people_company ON people (company_id);
    CREATE TABLE lists (
      id text PRIMARY KEY,
      workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      name text NOT NULL,
      kind text NOT NULL CHECK (kind IN ('companies', 'people')),
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      UNIQUE (workspace_id, name)
    );
    CREATE TABLE list_items (
      list_id text NOT NULL REFERENCES lists (id) ON DELETE CASCADE,
      position integer NOT NULL,
      item_id text NOT NULL,
      PRIMARY KEY (list_id, item_id)
    );
  `))
