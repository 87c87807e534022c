import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/bun-sql";
import { createHealthStore } from "../../shared/db/health.store.ts";
import { connectPostgres, migratePostgres, type PgDb } from "../../shared/db/postgres.ts";
import * as schema from "../../shared/db/schema.pg.ts";
import { DomainError } from "../../shared/errors.ts";
import { Redis } from "ioredis";
import { createApp } from "../../api/app.ts";
import { systemClock } from "../../shared/clock.ts";
import { postgresDatabase } from "../../shared/db/database.ts";
import { run } from "../../shared/db/flow.ts";
import { silentLogger } from "../../shared/logger.ts";
import { createApiKey, createWorkspace } from "../../shared/workspaces.ts";
import { freshPostgresDatabase, testPostgresUrl } from "../support/postgres.ts";
import { testRedisUrl, uniquePrefix, waitUntilReady } from "../support/test-app.ts";
import { startTcpProxy } from "../support/tcp-proxy.ts";
import { waitFor } from "../support/wait.ts";

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

  const write = (n: number) => {
    const handle = postgresDatabase(db);
    const insert = handle.sql.statement("INSERT INTO form_submissions (nonce, at) VALUES ($nonce, $at)");
    return Promise.resolve().then(() => run(handle.transaction(() => insert.run({ nonce: `n-${n}`, at: n }))));
  };

  test("writes answer service_unavailable within 5 s while it is away, readiness says so, and both recover by themselves", async () => {
    const store = createHealthStore(postgresDatabase(db).sql);
    const health = { answers: () => run(store.answers()) };
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
    const recovered = await waitFor(() => write(3).then(() => true, () => false), "a write once PostgreSQL is back", 10_000);
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
    const recovered = await waitFor(() => write(12).then(() => true, () => false), "a write once the partition ends", 15_000);
    expect(recovered).toBe(true);
    // The deadline cancelled the write answered 503: it did not commit once the partition ended.
    await Bun.sleep(500);
    const rows = await db.execute(sql`SELECT nonce FROM form_submissions WHERE nonce IN ('n-10', 'n-11', 'n-12') ORDER BY at`);
    expect((rows as unknown as { nonce: string }[]).map((r) => r.nonce)).toEqual(["n-10", "n-12"]);
  });

  test("the API answers 503 with Retry-After within 5 s while PostgreSQL is partitioned away, readiness says so, and it recovers by itself", async () => {
    const database = postgresDatabase(db);
    await run(createWorkspace(database, systemClock, { slug: "acme", name: "Acme" }));
    const { key } = await run(createApiKey(database, systemClock, { workspaceSlug: "acme", name: "outage", mode: "live", tier: "paid" }));
    const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: 1, enableOfflineQueue: false });
    await waitUntilReady(redis);
    const { app, close } = await createApp({ database, redis, clock: systemClock, logger: silentLogger, publicUrl: "http://x", redisPrefix: uniquePrefix("pg-outage") });
    const call = (method: string, path: string, body?: unknown) =>
      app.handle(
        new Request(`http://localhost${path}`, {
          method,
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: body === undefined ? undefined : JSON.stringify(body),
        }),
      );
    try {
      expect((await call("POST", "/api/v1/customers", { name: "Before" })).status).toBe(201);

      proxy.freeze();
      for (const [method, path, body] of [["GET", "/api/v1/customers"], ["POST", "/api/v1/customers", { name: "During" }]] as const) {
        const started = performance.now();
        const response = await call(method, path, body);
        expect({ method, status: response.status, code: ((await response.json()) as { error?: { code: string } }).error?.code }).toEqual({ method, status: 503, code: "service_unavailable" });
        expect(Number(response.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
        expect(performance.now() - started).toBeLessThan(5000);
      }
      // Under load from one address, past the 30 failed authentications that would lock it out:
      // a database away is not a bad key, so every answer is 503 with Retry-After, never 429, and
      // no body shows SQL, parameters or stored values.
      const answers = await Promise.all(
        Array.from({ length: 40 }, (_, i) => (i % 2 ? call("GET", "/api/v1/customers?limit=3") : call("POST", "/api/v1/customers", { name: `Private Name ${i}` }))),
      );
      const bodies = await Promise.all(answers.map((r) => r.text()));
      expect(answers.map((r) => r.status)).toEqual(answers.map(() => 503));
      expect(answers.every((r) => Number(r.headers.get("retry-after")) >= 1)).toBe(true);
      for (const body of bodies) expect(body).not.toMatch(/SELECT|INSERT|UPDATE|Private Name|org_|\$1|postgres/i);

      const ready = await call("GET", "/api/v1/health/ready");
      expect(ready.status).toBe(503);
      expect(((await ready.json()) as { checks: unknown }).checks).toEqual({ database: "error", redis: "ok" });

      proxy.cut();
      proxy.restore();
      const created = await waitFor(async () => (await call("POST", "/api/v1/customers", { name: "After" })).status === 201, "a create once PostgreSQL is back", 15_000);
      expect(created).toBe(true);
      expect((await call("GET", "/api/v1/health/ready")).status).toBe(200);
      // Nothing answered 503 was stored, then or later.
      await Bun.sleep(500);
      const stored = await db.execute(sql`SELECT count(*)::int AS n FROM customers WHERE name LIKE 'Private Name%' OR name = 'During'`);
      expect((stored as unknown as { n: number }[])[0]!.n).toBe(0);
    } finally {
      await Promise.race([close().catch(() => {}), Bun.sleep(5000)]);
      redis.disconnect();
    }
  });
});
