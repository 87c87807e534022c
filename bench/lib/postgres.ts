import { SQL } from "bun";
import { drizzle } from "drizzle-orm/bun-sql";
import type { Db } from "../../shared/db/client.ts";
import { copySqliteToPostgres } from "../../shared/db/copy.store.ts";
import { migratePostgres, type PgDb } from "../../shared/db/postgres.ts";
import * as schema from "../../shared/db/schema.pg.ts";

/** The server the PostgreSQL benchmark creates its databases on (a user that may create databases). */
export const benchPostgresServer = () => process.env.BENCH_POSTGRES_URL || process.env.TEST_POSTGRES_URL || "postgres://postgres@127.0.0.1:5432/postgres";

/**
 * Two fresh databases (`bench_<random>_service`, `…_baseline`), migrated and filled with the
 * rows already seeded into the SQLite files, through the same copy as `db copy --to`.
 */
export async function seedPostgres(sources: { service: Db; baseline: Db }) {
  const server = benchPostgresServer();
  const admin = new SQL({ url: server, max: 1, connectionTimeout: 3 });
  const stem = `bench_${crypto.randomUUID().replaceAll("-", "").slice(0, 10)}`;
  const urls: Record<"service" | "baseline", string> = { service: "", baseline: "" };
  for (const role of ["service", "baseline"] as const) {
    const name = `${stem}_${role}`;
    await admin.unsafe(`CREATE DATABASE ${name}`);
    const url = new URL(server);
    url.pathname = `/${name}`;
    urls[role] = url.toString();
    await migratePostgres(urls[role]);
    const client = new SQL({ url: urls[role], max: 1 });
    await copySqliteToPostgres(sources[role], drizzle(client, { schema }) as PgDb);
    await client.close();
  }
  let dropped = false;
  return {
    serviceUrl: urls.service,
    baselineUrl: urls.baseline,
    async dropAll(): Promise<void> {
      if (dropped) return;
      dropped = true;
      for (const role of ["service", "baseline"]) await admin.unsafe(`DROP DATABASE IF EXISTS ${stem}_${role} WITH (FORCE)`).catch(() => {});
      await admin.close();
    },
  };
}
