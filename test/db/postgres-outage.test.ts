import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/bun-sql";
import { createPgHealthStore } from "../../shared/db/health.pg.store.ts";
import { connectPostgres, migratePostgres, pgTransaction, type PgDb } from "../../shared/db/postgres.ts";
import * as schema from "../../shared/db/schema.pg.ts";
import { DomainError } from "../../shared/errors.ts";
import { freshPostgresDatabase, testPostgresUrl } from "../support/postgres.ts";
import { startTcpProxy } from "../support/tcp-proxy.ts";

const server = testPostgresUrl();

/** PostgreSQL going away while the service runs (a restart, a failover), seen through a proxy the test cuts. */
describe.skipIf(!server)("PostgreSQL away while running, and back", () => {
  let database: Awaited<ReturnType<typeof freshPostgresDatabase>>;
  let proxy: Awaited<ReturnType<typeof startTcpProxy>>;
  let db: PgDb;
  beforeAll(async () => {
    database = await freshPostgresDatabase(server!);
    await migratePostgres(database.url);
    const target = new URL(database.url);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    target.port = String(proxy.port);
    db = drizzle(connectPostgres(target.toString(), { poolSize: 4, connectTimeoutSeconds: 2 }), { schema }) as PgDb;
  });
  afterAll(async () => {
    await db?.$client.close().catch(() => {});
    proxy?.stop();
    await database?.drop();
  });

  const write = (n: number) => pgTransaction(db, async (tx) => tx.insert(schema.formSubmissions).values({ nonce: `n-${n}`, at: n }));

  test("writes answer service_unavailable within 5 s while it is away, readiness says so, and both recover by themselves", async () => {
    const health = createPgHealthStore(db);
    await write(1);
    expect(await health.answers()).toBe(true);

    proxy.cut();
    const started = performance.now();
    const failure = await write(2).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(DomainError);
    expect((failure as DomainError).code).toBe("service_unavailable");
    expect(performance.now() - started).toBeLessThan(5000);
    expect(await health.answers()).toBe(false);

    proxy.restore();
    const deadline = Date.now() + 10_000;
    let recovered = false;
    while (!recovered && Date.now() < deadline) {
      recovered = await write(3).then(() => true, () => false);
      if (!recovered) await Bun.sleep(100);
    }
    expect(recovered).toBe(true);
    expect(await health.answers()).toBe(true);
    const rows = await db.execute(sql`SELECT nonce FROM form_submissions ORDER BY at`);
    expect((rows as unknown as { nonce: string }[]).map((r) => r.nonce)).toEqual(["n-1", "n-3"]);
  });

  test("a partition (connections open, nothing answers) is a 503 within 5 s, never a hang", async () => {
    await write(10);
    proxy.freeze();
    const started = performance.now();
    const failure = await write(11).catch((e: unknown) => e);
    expect((failure as DomainError).code).toBe("service_unavailable");
    expect(performance.now() - started).toBeLessThan(5000);
    proxy.cut(); // the partition ends as failovers do: the old connections are gone
    proxy.restore();
    const deadline = Date.now() + 15_000;
    let recovered = false;
    while (!recovered && Date.now() < deadline) {
      recovered = await write(12).then(() => true, () => false);
      if (!recovered) await Bun.sleep(100);
    }
    expect(recovered).toBe(true);
  });
});
