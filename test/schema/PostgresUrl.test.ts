import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { PostgresUrl, targetOf, withoutPassword } from "../../schema/PostgresUrl.ts"

describe("PostgresUrl", () => {
  it("takes the forms pg connects with, and points where pg does", () => {
    const where = [
      ["postgres://ana:s3cret@db.example.com:5433/brein", "db.example.com:5433"],
      ["postgresql://db/brein", "db:5432"],
      ["postgres:///brein", "localhost:5432"],
      ["postgres://ana@[::1]:6000/brein", "[::1]:6000"],
      ["postgres://ana@/brein?host=/run/postgresql", "/run/postgresql/.s.PGSQL.5432"],
      ["postgres://ana@%2Frun%2Fpostgresql:5434/brein", "/run/postgresql/.s.PGSQL.5434"],
      ["postgres://ana@db/brein?host=other&port=7000", "other:7000"]
    ] as const
    for (const [url, target] of where) {
      assert.isTrue(Schema.is(PostgresUrl)(url), url)
      assert.strictEqual(targetOf(url), target, url)
    }
  })

  it("refuses what is not a PostgreSQL URL", () => {
    for (
      const url of ["notaurl", "localhost:5432", "http://db/brein", "postgres//db/brein", "postgres://ana:s3cret@", "mysql://db/brein"]
    ) {
      assert.isFalse(Schema.is(PostgresUrl)(url), url)
    }
  })

  it("shows a URL without its password, whatever its shape", () => {
    const shown = [
      ["postgres://ana:s3cret@db/brein", "postgres://ana:***@db/brein"],
      ["postgres://ana:s3c@ret@db/brein", "postgres://ana:***@db/brein"],
      ["postgres//ana:s3cret@db/brein", "postgres//ana:***@db/brein"],
      ["ana:s3cret@db", "ana:***@db"],
      ["http://db/brein?sslmode=require&password=s3cret", "http://db/brein?sslmode=require&password=***"],
      ["postgres://ana@db/brein", "postgres://ana@db/brein"],
      ["localhost:5432", "localhost:5432"]
    ] as const
    for (const [url, safe] of shown) assert.strictEqual(withoutPassword(url), safe, url)
  })
})
