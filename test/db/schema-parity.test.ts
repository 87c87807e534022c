import { describe, expect, test } from "bun:test";
import { is, SQL, type Table } from "drizzle-orm";
import { getTableConfig as pgConfig, PgTable } from "drizzle-orm/pg-core";
import { getTableConfig as sqliteConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import * as pg from "../../shared/db/schema.pg.ts";
import * as sqlite from "../../shared/db/schema.ts";

/** The same type on both engines: SQLite's integer holds PostgreSQL's integer and bigint (microseconds). */
const SAME_TYPE: Record<string, string[]> = {
  integer: ["integer", "bigint"],
  text: ["text"],
  real: ["double precision"],
  boolean: ["boolean"], // SQLite's integer in boolean mode
};

/** A partial index's condition, written so both engines' spellings compare equal. */
function condition(where: SQL | undefined): string | null {
  if (!where) return null;
  const text = where.queryChunks.map((chunk) => ((chunk as { value?: string[] }).value ?? []).join("")).join("");
  return text.replace(/ = 1\b/g, "").replace(/\s+/g, " ").trim();
}

type Config = ReturnType<typeof sqliteConfig> | ReturnType<typeof pgConfig>;

function describeTable(config: Config, engine: "sqlite" | "pg") {
  const columns = config.columns.map((column) => {
    const sqlType = column.columnType === "SQLiteBoolean" ? "boolean" : column.getSQLType();
    return {
      name: column.name,
      type: engine === "sqlite" ? sqlType : Object.keys(SAME_TYPE).find((k) => SAME_TYPE[k]!.includes(sqlType)) ?? sqlType,
      notNull: column.notNull,
      primary: column.primary,
      unique: column.isUnique,
      default: column.default === undefined ? null : String(column.default),
    };
  });
  const indexes = config.indexes
    .map((index) => ({
      name: index.config.name,
      unique: index.config.unique,
      columns: index.config.columns.map((c) => (c as { name: string }).name),
      where: condition(index.config.where),
    }))
    .sort((a, b) => a.name!.localeCompare(b.name!));
  const primaryKeys = config.primaryKeys.map((pk) => pk.columns.map((c) => c.name));
  const foreignKeys = config.foreignKeys
    .map((fk) => {
      const ref = fk.reference();
      return { columns: ref.columns.map((c) => c.name), to: (ref.foreignTable as unknown as { [k: symbol]: string })[Symbol.for("drizzle:Name")], onDelete: fk.onDelete ?? "no action" };
    })
    .sort((a, b) => a.columns.join().localeCompare(b.columns.join()));
  return { name: config.name, columns, indexes, primaryKeys, foreignKeys };
}

function tables(module: Record<string, unknown>, kind: typeof SQLiteTable): SQLiteTable[];
function tables(module: Record<string, unknown>, kind: typeof PgTable): PgTable[];
function tables(module: Record<string, unknown>, kind: typeof SQLiteTable | typeof PgTable): Table[] {
  return Object.values(module).filter((value): value is Table => is(value, kind));
}

describe("the SQLite and PostgreSQL schemas", () => {
  const sqliteTables = tables(sqlite, SQLiteTable).map((t) => describeTable(sqliteConfig(t), "sqlite"));
  const pgTables = tables(pg, PgTable).map((t) => describeTable(pgConfig(t), "pg"));
  const byName = <T extends { name: string }>(list: T[]) => Object.fromEntries(list.map((t) => [t.name, t]));

  test("have the same tables", () => {
    expect(pgTables.map((t) => t.name).sort()).toEqual(sqliteTables.map((t) => t.name).sort());
    expect(sqliteTables.length).toBeGreaterThanOrEqual(20);
  });

  test("have, table by table, the same columns, types, nullability, defaults, keys and indexes", () => {
    const pgByName = byName(pgTables);
    for (const table of sqliteTables) expect({ table: table.name, ...pgByName[table.name] }).toEqual({ table: table.name, ...table });
  });

  test("microsecond timestamps are bigint on PostgreSQL (a 32-bit integer holds 35 minutes of them)", () => {
    const overflow = pgTables.flatMap((t) =>
      pgConfig(tables(pg, PgTable).find((x) => pgConfig(x).name === t.name)!)
        .columns.filter((c) => /(_at|_since|_micros)$/.test(c.name) && c.getSQLType() !== "text" && c.getSQLType() !== "bigint")
        .map((c) => `${t.name}.${c.name}`),
    );
    expect(overflow).toEqual([]);
  });
});
