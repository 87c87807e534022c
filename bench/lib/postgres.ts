import { SQL } from "bun";
import { drizzle } from "drizzle-orm/bun-sql";
import type { Db } from "../../shared/db/client.ts";
import { copySqliteToPostgres } from "../../shared/db/copy.store.ts";
import { migratePostgres, type PgDb } from "../../shared/db/postgres.ts";
import * as schema from "../../shared/db/schema.pg.ts";

/** The server the PostgreSQL benchmark creates its databases on (a user that may create databases). */
export const benchPostgresServer = () => process.env.BENCH_POSTGRES_URL || process.env.TEST_POSTGRES_URL || "postgres://postgres@127.0.0.1:5432/postgres";

/**
 * A fresh database named `name` on the benchmark's server, migrated and filled with the rows of
 * a seeded SQLite file, through the same copy as `db copy --to`.
 */
export async function copyToFreshPostgres(source: Db, name: string): Promise<{ url: string; drop(): Promise<void> }> {
  const server = benchPostgresServer();
  const admin = new SQL({ url: server, max: 1, connectionTimeout: 3 });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(server);
  url.pathname = `/${name}`;
  await migratePostgres(url.toString());
  const client = new SQL({ url: url.toString(), max: 1 });
  await copySqliteToPostgres(source, drizzle(client, { schema }) as PgDb);
  await client.close();
  let dropped = false;
  return {
    url: url.toString(),
    async drop(): Promise<void> {
      if (dropped) return;
      dropped = true;
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
      await admin.close();
    },
  };
}

/** Two fresh databases (`bench_<random>_service`, `…_baseline`), each filled from its SQLite file. */
export async function seedPostgres(sources: { service: Db; baseline: Db }) {
  const stem = `bench_${crypto.randomUUID().replaceAll("-", "").slice(0, 10)}`;
  const service = await copyToFreshPostgres(sources.service, `${stem}_service`);
  const baseline = await copyToFreshPostgres(sources.baseline, `${stem}_baseline`).catch(async (error) => {
    await service.drop();
    throw error;
  });
  return {
    serviceUrl: service.url,
    baselineUrl: baseline.url,
    async dropAll(): Promise<void> {
      await Promise.all([service.drop(), baseline.drop()]);
    },
  };
}
