import { getTableColumns, getTableName, is, sql, type Table } from "drizzle-orm";
import { getTableConfig as pgConfig, PgTable } from "drizzle-orm/pg-core";
import { getTableConfig as sqliteConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Db } from "./client.ts";
import type { PgDb } from "./postgres.ts";
import * as pgSchema from "./schema.pg.ts";
import * as sqliteSchema from "./schema.ts";

export class CopyRefused extends Error {}

export interface CopyReport {
  /** Rows per table, as read from SQLite and counted again in PostgreSQL. */
  tables: Record<string, number>;
  total: number;
}

const BATCH = 500;
/** Tables whose rows the migrations write (`auth_revision`'s one row): present in a fresh target. */
const SEEDED_BY_MIGRATIONS = new Set(["auth_revision"]);
const ROWID = "__rowid";

/** Tables in an order that satisfies their foreign keys (parents first). */
function tablesInDependencyOrder(): { name: string; source: SQLiteTable; target: PgTable }[] {
  const sources = (Object.values(sqliteSchema) as unknown[]).filter((t): t is SQLiteTable => is(t, SQLiteTable));
  const targets = new Map((Object.values(pgSchema) as unknown[]).filter((t): t is PgTable => is(t, PgTable)).map((t) => [getTableName(t), t]));
  const parents = new Map<string, string[]>(sources.map((t) => [getTableName(t), sqliteConfig(t).foreignKeys.map((fk) => getTableName(fk.reference().foreignTable))]));
  const ordered: string[] = [];
  const visit = (name: string) => {
    if (ordered.includes(name)) return;
    for (const parent of parents.get(name) ?? []) if (parent !== name) visit(parent);
    ordered.push(name);
  };
  for (const name of [...parents.keys()].sort()) visit(name);
  return ordered.map((name) => {
    const target = targets.get(name);
    if (!target) throw new Error(`table ${name} has no PostgreSQL twin in schema.pg.ts`);
    return { name, source: sources.find((t) => getTableName(t) === name)!, target };
  });
}

/** A stable order for reading and comparing a table: its primary key. */
function keyColumns(table: Table): string[] {
  if (is(table, SQLiteTable)) {
    const config = sqliteConfig(table);
    const pk = config.primaryKeys[0]?.columns.map((c) => c.name) ?? config.columns.filter((c) => c.primary).map((c) => c.name);
    return pk;
  }
  const config = pgConfig(table as PgTable);
  return config.primaryKeys[0]?.columns.map((c) => c.name) ?? config.columns.filter((c) => c.primary).map((c) => c.name);
}

/**
 * Copies every table of a SQLite database into an empty PostgreSQL one (already migrated), in
 * one PostgreSQL transaction, from one SQLite read snapshot: ids, display ids and the
 * per-workspace sequences are kept, identity columns continue after the highest id, and each
 * table's row count is checked on both sides before the commit.
 */
export async function copySqliteToPostgres(source: Db, target: PgDb): Promise<CopyReport> {
  const tables = tablesInDependencyOrder();
  const sqlite = source.$client;
  const report: CopyReport = { tables: {}, total: 0 };
  sqlite.exec("BEGIN"); // one read snapshot, however long the copy takes
  try {
    await target.transaction(async (tx) => {
      for (const { name } of tables) {
        if (SEEDED_BY_MIGRATIONS.has(name)) continue;
        const [row] = (await tx.execute(sql.raw(`SELECT count(*)::int AS n FROM "${name}"`))) as unknown as { n: number }[];
        if (row!.n !== 0) throw new CopyRefused(`the target database is not empty (table ${name} has ${row!.n} rows); copy into an empty database`);
      }
      // The migrations' own rows give way to the source's (which has them too).
      for (const name of SEEDED_BY_MIGRATIONS) await tx.execute(sql.raw(`DELETE FROM "${name}"`));
      for (const { name, source: table, target: pgTable } of tables) {
        // Walked by rowid (every table here has one): each batch is an index range, so a large
        // table costs linear time, where LIMIT/OFFSET would rescan what was already copied.
        const read = source
          .select({ ...getTableColumns(table), [ROWID]: sql<number>`rowid` })
          .from(table)
          .where(sql`rowid > ${sql.placeholder("after")}`)
          .orderBy(sql`rowid`)
          .limit(BATCH)
          .prepare();
        let copied = 0;
        let after = 0;
        for (;;) {
          const rows = read.all({ after }) as Record<string, unknown>[];
          if (rows.length === 0) break;
          after = rows[rows.length - 1]![ROWID] as number;
          for (const row of rows) delete row[ROWID];
          await tx.insert(pgTable).values(rows as never);
          copied += rows.length;
          if (rows.length < BATCH) break;
        }
        const [counted] = (await tx.execute(sql.raw(`SELECT count(*)::int AS n FROM "${name}"`))) as unknown as { n: number }[];
        const expected = (sqlite.query(`SELECT count(*) AS n FROM "${name}"`).get() as { n: number }).n;
        if (counted!.n !== expected || copied !== expected) {
          throw new Error(`table ${name}: ${expected} rows in SQLite, ${copied} read, ${counted!.n} in PostgreSQL`);
        }
        // Identity columns go on after the highest copied id, never handing one out twice.
        for (const column of pgConfig(pgTable).columns) {
          if ((column as { generatedIdentity?: unknown }).generatedIdentity) {
            await tx.execute(
              sql.raw(`SELECT setval(pg_get_serial_sequence('"${name}"', '${column.name}'), coalesce((SELECT max("${column.name}") FROM "${name}"), 0) + 1, false)`),
            );
          }
        }
        report.tables[name] = expected;
        report.total += expected;
      }
    });
  } finally {
    sqlite.exec("COMMIT");
  }
  // Statistics and visibility for the rows just loaded. Until autovacuum gets to them the
  // planner knows nothing of them and may pick a partial index with the workspace's id over the
  // primary key (measured: one onboarding's read scanning a 100,000-onboarding workspace, 14 ms
  // instead of 0.05), and no index-only scan can skip the heap. Outside any transaction.
  await target.execute(sql.raw("VACUUM (ANALYZE)"));
  return report;
}

/** Every row of every table, in primary-key order, as each engine's drizzle schema reads it: for comparing two databases. */
export async function dumpBoth(source: Db, target: PgDb): Promise<{ sqlite: Record<string, unknown[]>; postgres: Record<string, unknown[]> }> {
  const out = { sqlite: {} as Record<string, unknown[]>, postgres: {} as Record<string, unknown[]> };
  for (const { name, source: table, target: pgTable } of tablesInDependencyOrder()) {
    const order = sql.raw(keyColumns(table).map((c) => `"${c}"`).join(", "));
    out.sqlite[name] = source.select().from(table).orderBy(order).all();
    out.postgres[name] = await target.select().from(pgTable).orderBy(order);
  }
  return out;
}
