import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { getTableConfig, PgTable } from "drizzle-orm/pg-core";
import { is } from "drizzle-orm";
import * as pg from "../../shared/db/schema.pg.ts";
import { PG_MIGRATIONS_FOLDER } from "../../shared/db/postgres.ts";
import { freshPostgresDatabase, testPostgresUrl } from "../support/postgres.ts";

const server = testPostgresUrl();

describe.skipIf(!server)("PostgreSQL migrations in drizzle/postgres/", () => {
  let database: Awaited<ReturnType<typeof freshPostgresDatabase>>;
  let client: SQL;
  beforeAll(async () => {
    database = await freshPostgresDatabase(server!);
    client = new SQL({ url: database.url, max: 1 });
  });
  afterAll(async () => {
    await client?.close();
    await database?.drop();
  });

  test("four processes starting together on an empty database migrate it once", async () => {
    const script = `import { migratePostgres } from "./shared/db/postgres.ts"; await migratePostgres(process.env.MIGRATE_URL);`;
    const children = Array.from({ length: 4 }, () =>
      Bun.spawn([process.execPath, "-e", script], { env: { ...process.env, MIGRATE_URL: database.url }, stdout: "pipe", stderr: "pipe" }),
    );
    const codes = await Promise.all(children.map((child) => child.exited));
    const errors = await Promise.all(children.map((child) => new Response(child.stderr).text()));
    expect({ codes, errors: errors.filter((e) => e.trim() !== "") }).toEqual({ codes: [0, 0, 0, 0], errors: [] });

    const journal = JSON.parse(readFileSync(join(PG_MIGRATIONS_FOLDER, "meta/_journal.json"), "utf8")) as { entries: unknown[] };
    const applied = await client`SELECT hash FROM drizzle.__drizzle_migrations`;
    expect(applied).toHaveLength(journal.entries.length);
  });

  test("the migrated tables have exactly the pg-core schema's columns and nullability", async () => {
    const rows = (await client`
      SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns
      WHERE table_schema = 'public' ORDER BY table_name, column_name`) as { table_name: string; column_name: string; data_type: string; is_nullable: string }[];
    const actual = rows.map((r) => `${r.table_name}.${r.column_name} ${r.data_type}${r.is_nullable === "NO" ? " not null" : ""}`);
    const expected = (Object.values(pg) as unknown[])
      .filter((value): value is PgTable => is(value, PgTable))
      .flatMap((table) => {
        const config = getTableConfig(table);
        return config.columns.map((c) => `${config.name}.${c.name} ${c.getSQLType()}${c.notNull ? " not null" : ""}`);
      })
      .sort();
    expect(actual.sort()).toEqual(expected);
  });

  test("the migrated database has exactly the pg-core schema's indexes, partial conditions included", async () => {
    const rows = (await client`
      SELECT indexname, indexdef FROM pg_indexes
      WHERE schemaname = 'public' AND indexname NOT LIKE '%_pkey' AND indexname NOT LIKE '%_pk' AND indexname NOT LIKE '%_unique' ORDER BY indexname`) as { indexname: string; indexdef: string }[];
    const expected = (Object.values(pg) as unknown[])
      .filter((value): value is PgTable => is(value, PgTable))
      .flatMap((table) => getTableConfig(table).indexes.map((index) => ({ name: index.config.name!, unique: index.config.unique, partial: index.config.where !== undefined })))
      .sort((a, b) => a.name.localeCompare(b.name));
    expect(rows.map((r) => ({ name: r.indexname, unique: r.indexdef.startsWith("CREATE UNIQUE"), partial: r.indexdef.includes(" WHERE ") })).sort((a, b) => a.name.localeCompare(b.name))).toEqual(expected);
  });
});
