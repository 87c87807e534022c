import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Redis } from "ioredis";
import { createApp } from "../../api/app.ts";
import { Me } from "../../api/meta/meta.schema.ts";
import { systemClock } from "../../shared/clock.ts";
import { silentLogger } from "../../shared/logger.ts";
import { freePort } from "../../scripts/private-redis.ts";
import { createTestApp, expectSchema, freshTestDatabase, uniquePrefix, type TestApp } from "../support/test-app.ts";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe("meta", () => {
  test("GET /me returns shape B with shape A's top-level fields", async () => {
    const response = await t.call("GET", "/api/v1/me");
    expect(response.status).toBe(200);
    expectSchema(Me, response.body);
    expect(response.body).toMatchObject({
      object: "me",
      api_key: { name: "crm-sync", scopes: ["read", "write"], rate_limit_tier: "paid", mode: "live" },
      organization: { slug: "acme", name: "Acme" },
      key_name: "crm-sync",
      org_slug: "acme",
      mode: "live",
    });
    expect(response.body.key_prefix).toBe(t.keys.live.slice(0, 12));
    expect(response.body.api_key.prefix).toBe(t.keys.live.slice(0, 12));
    expect((await t.call("GET", "/api/v1/me", { key: t.keys.test })).body.mode).toBe("test");
  });

  test("liveness needs no key", async () => {
    const response = await t.call("GET", "/api/v1/health", { key: null });
    expect(response.body).toEqual({ status: "ok" });
  });

  test("readiness is 200 when the database and Redis answer", async () => {
    const response = await t.call("GET", "/api/v1/health/ready", { key: null });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: "ready", checks: { database: "ok", redis: "ok" }, rate_limiter: "redis" });
  });

  test("readiness is 503 naming Redis when Redis does not answer", async () => {
    const database = await freshTestDatabase();
    const deadRedis = new Redis(`redis://127.0.0.1:${await freePort()}`, { maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null, lazyConnect: true });
    deadRedis.on("error", () => {});
    const { app } = await createApp({ database: database.database, redis: deadRedis, clock: systemClock, logger: silentLogger, publicUrl: "http://x", redisPrefix: uniquePrefix("meta") });
    const response = await app.handle(new Request("http://localhost/api/v1/health/ready"));
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({ status: "unavailable", checks: { database: "ok", redis: "error" }, rate_limiter: "per_process" });
    deadRedis.disconnect();
    await database.cleanup();
  });
});
