import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Redis } from "ioredis";
import { createApp } from "../../api/app.ts";
import { DEFAULT_RATE_LIMITS } from "../../api/limits/request-limits.ts";
import { systemClock } from "../../shared/clock.ts";
import { silentLogger } from "../../shared/logger.ts";
import { createTestApp, freshTestDatabase, testRedisUrl, uniquePrefix, type TestApp } from "../support/test-app.ts";

const ADMIN_TOKEN = "admin-token-for-tests-0123456789";
let t: TestApp;
let app: Awaited<ReturnType<typeof createApp>>;
let redis: Redis;
const database = await freshTestDatabase();

beforeAll(async () => {
  t = await createTestApp();
  redis = new Redis(testRedisUrl(), { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  await new Promise((resolve) => redis.once("ready", resolve));
  app = await createApp({ database: database.database, redis, clock: systemClock, logger: silentLogger, publicUrl: "http://x", redisPrefix: uniquePrefix("admin"), adminToken: ADMIN_TOKEN });
});
afterAll(async () => {
  await app.close();
  redis.disconnect();
  await database.cleanup();
  await t.close();
});

const get = (path: string, authorization?: string, method = "GET") =>
  app.app.handle(new Request(`http://localhost${path}`, { method, headers: authorization ? { authorization } : {} }));

describe("admin surface", () => {
  test("without ADMIN_TOKEN configured, /metrics and /admin/queues do not exist", async () => {
    expect((await t.call("GET", "/metrics", { key: null })).status).toBe(404);
    expect((await t.call("GET", "/admin/queues", { key: null })).status).toBe(404);
  });

  test("the admin token is required, as Bearer or as the Basic password", async () => {
    expect((await get("/metrics")).status).toBe(401);
    expect((await get("/metrics")).headers.get("www-authenticate")).toContain("Basic");
    expect((await get("/metrics", "Bearer wrong")).status).toBe(401);
    expect((await get("/metrics", `Bearer ${ADMIN_TOKEN}`)).status).toBe(200);
    expect((await get("/metrics", `Basic ${btoa(`admin:${ADMIN_TOKEN}`)}`)).status).toBe(200);
  });

  test("wrong admin tokens are limited per address; the right token is still accepted from it", async () => {
    const limited = await createApp({
      database: database.database,
      redis,
      clock: systemClock,
      logger: silentLogger,
      publicUrl: "http://x",
      redisPrefix: uniquePrefix("admin-limit"),
      adminToken: ADMIN_TOKEN,
      rateLimits: { ...DEFAULT_RATE_LIMITS, failedAdminPerAddress: 3 },
    });
    const call = (authorization: string) => limited.app.handle(new Request("http://localhost/metrics", { headers: { authorization } }));
    for (let i = 0; i < 3; i++) expect((await call(`Bearer wrong-token-${i}`)).status).toBe(401);
    const refused = await call("Bearer wrong-token-again");
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect((await call(`Bearer ${ADMIN_TOKEN}`)).status).toBe(200);
    await limited.close();
  });

  test("metrics cover requests, queue depths, the outbox backlog, deliveries and the limiter", async () => {
    await app.app.handle(new Request("http://localhost/api/v1/health"));
    const text = await (await get("/metrics", `Bearer ${ADMIN_TOKEN}`)).text();
    expect(text).toContain('http_requests_total{method="GET",route="/api/v1/health",status="200"} 1');
    expect(text).toContain("# TYPE http_requests_total counter");
    expect(text).toContain("# TYPE http_request_duration_seconds histogram");
    // Buckets are cumulative and end at +Inf with the count; the histogram is labelled by method and route.
    const health = (suffix: string) => new RegExp(`http_request_duration_seconds_${suffix}\\{method="GET",route="/api/v1/health"[^}]*\\} ([0-9.e-]+)`);
    expect(text).toMatch(health("count"));
    expect(text.match(health("count"))![1]).toBe("1");
    expect(text).toContain('http_request_duration_seconds_bucket{method="GET",route="/api/v1/health",le="+Inf"} 1');
    expect(text).toContain('http_request_duration_seconds_bucket{method="GET",route="/api/v1/health",le="1"} 1');
    expect(Number(text.match(health("sum"))![1])).toBeGreaterThan(0);
    expect(text).toContain('queue_jobs{queue="outbound",state="waiting"}');
    expect(text).toContain("outbox_backlog 0");
    expect(text).toContain("# TYPE deliveries gauge");
    expect(text).toContain("rate_limiter_per_process 0");
    expect(Number(/^database_bytes (\d+)$/m.exec(text)?.[1])).toBeGreaterThan(0);
    expect(text).toContain('retention_pruned_rows{table="activity_entries"} 0');
  });

  test("the queue dashboard serves behind the token", async () => {
    const page = await get("/admin/queues", `Bearer ${ADMIN_TOKEN}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("<html");
    const api = await get("/admin/queues/api/queues", `Bearer ${ADMIN_TOKEN}`);
    expect(api.status).toBe(200);
    const names = ((await api.json()) as { queues: { name: string }[] }).queues.map((q) => q.name).sort();
    expect(names).toEqual(["outbound", "records", "webhooks"]);
    expect((await get("/admin/queues/api/queues")).status).toBe(401);
  });

  test("the dashboard's actions go through too (it is loaded by its first request), and only with the token", async () => {
    expect((await get("/admin/queues/api/queues/records/pause", undefined, "PUT")).status).toBe(401);
    expect((await get("/admin/queues/api/queues/records/pause", `Bearer ${ADMIN_TOKEN}`, "PUT")).status).toBe(200);
    expect(await app.queues.records.isPaused()).toBe(true);
    expect((await get("/admin/queues/api/queues/records/resume", `Bearer ${ADMIN_TOKEN}`, "PUT")).status).toBe(200);
    expect(await app.queues.records.isPaused()).toBe(false);
  });
});
