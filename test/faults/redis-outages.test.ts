import { afterEach, describe, expect, test } from "bun:test";
import { Redis } from "ioredis";
import { startPrivateRedis, type PrivateRedis } from "../../scripts/private-redis.ts";
import { startApiProcess, fetchWithin, type ApiProcess } from "../support/api-process.ts";
import { exitWithin, startProcess } from "../support/processes.ts";
import { waitFor } from "../support/side-effects-harness.ts";

/**
 * A Redis that hangs (SIGSTOP) or is stopped must never hang a request: the API answers on
 * its per-process limiter, readiness says so, the relay backs off, and the outage is logged
 * once. Real processes: the API's entry point and a private redis-server.
 */
const started: { api?: ApiProcess; redis: PrivateRedis[]; stopped: number[] } = { redis: [], stopped: [] };
afterEach(async () => {
  for (const pid of started.stopped.splice(0)) process.kill(pid, "SIGCONT");
  await started.api?.stop();
  started.api = undefined;
  for (const redis of started.redis.splice(0).reverse()) await redis.stop().catch(() => {});
});

async function apiOnPrivateRedis() {
  const redis = await startPrivateRedis();
  started.redis.push(redis);
  const api = await startApiProcess({ redisUrl: redis.url });
  started.api = api;
  return { redis, api };
}

const metric = async (api: ApiProcess, name: string) => {
  const text = await (await fetchWithin(5000, `${api.base}/metrics`, { headers: { authorization: "Bearer admin-token-0123456789abcdef" } })).text();
  return Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1]);
};

describe("Redis faults, against the real API process", () => {
  test("Redis hung with SIGSTOP: every request still answers (on the per-process limiter), readiness says per_process, and all is shared again after SIGCONT", async () => {
    const { redis, api } = await apiOnPrivateRedis();
    expect((await fetchWithin(5000, `${api.base}/api/v1/me`, { headers: api.headers })).status).toBe(200);

    process.kill(redis.pid, "SIGSTOP");
    started.stopped.push(redis.pid);
    // A hung Redis accepts the connection and never answers: each of these would wait forever
    // without a bound. fetchWithin fails the test instead of hanging it.
    // 15 requests: the first 9 may still spend slots this process leased before the hang.
    for (let i = 0; i < 15; i++) {
      const me = await fetchWithin(5000, `${api.base}/api/v1/me`, { headers: api.headers });
      expect(me.status).toBe(200);
      expect(me.headers.get("x-ratelimit-limit")).toBe("600");
    }
    const created = await fetchWithin(5000, `${api.base}/api/v1/customers`, { method: "POST", headers: api.headers, body: '{"name":"During a hang"}' });
    expect(created.status).toBe(201);
    const ready = await fetchWithin(5000, `${api.base}/api/v1/health/ready`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ checks: { database: "ok", redis: "error" }, rate_limiter: "per_process" });
    expect(api.logged("Redis unreachable: rate limits fall back to this process only")).toHaveLength(1);

    process.kill(redis.pid, "SIGCONT");
    started.stopped.splice(0);
    await waitFor(async () => {
      const r = await fetchWithin(5000, `${api.base}/api/v1/health/ready`);
      return r.status === 200 && ((await r.json()) as { rate_limiter: string }).rate_limiter === "redis";
    }, "readiness back on the shared limiter");
    await waitFor(() => (api.db.$client.query("SELECT count(*) AS n FROM outbox WHERE relayed_at IS NULL").get() as { n: number }).n === 0, "the outbox relayed after the hang");
  });

  test("Redis stopped under writes: writes are served, the relay backs off instead of rebuilding jobs, the outage is logged once, and everything is relayed when it returns", async () => {
    const { redis, api } = await apiOnPrivateRedis();
    const customer = (await (await fetchWithin(5000, `${api.base}/api/v1/customers`, { method: "POST", headers: api.headers, body: '{"name":"Writes"}' })).json()) as { id: string };
    await redis.stop();

    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) {
      const r = await fetchWithin(5000, `${api.base}/api/v1/onboardings`, { method: "POST", headers: api.headers, body: JSON.stringify({ customer_id: customer.id }) });
      const id = ((await r.json()) as { id: string }).id;
      const p = await fetchWithin(5000, `${api.base}/api/v1/onboardings/${id}`, { method: "PATCH", headers: api.headers, body: '{"phase":"launch"}' });
      statuses.push(r.status, p.status);
    }
    expect(new Set(statuses)).toEqual(new Set([201, 200]));
    expect(await metric(api, "outbox_relay_waiting_for_redis")).toBe(1);
    // Two launch automations per launch (a live key); the timeline and the transition are written by the change.
    expect(await metric(api, "outbox_backlog")).toBeGreaterThanOrEqual(80);
    expect(api.logged("redis connection lost; retrying in the background")).toHaveLength(1);
    expect(api.logged("outbox relay cannot reach Redis: rows wait in the outbox, retrying with back-off")).toHaveLength(1);

    const back = await startPrivateRedis({ port: redis.port });
    started.redis.push(back);
    await waitFor(async () => (await metric(api, "outbox_backlog")) === 0, "the backlog relayed once Redis is back", 20_000);
    expect(await metric(api, "outbox_relay_waiting_for_redis")).toBe(0);
    await waitFor(() => api.logged("redis connection restored").length === 1, "the recovery logged once");
    expect(api.logged("outbox relay resumed: Redis answers again")).toHaveLength(1);
  });

  test("a Redis that may evict keys is named at start-up (BullMQ needs maxmemory-policy noeviction)", async () => {
    const redis = await startPrivateRedis();
    started.redis.push(redis);
    const client = new Redis(redis.url);
    await client.config("SET", "maxmemory-policy", "allkeys-lru");
    client.disconnect();
    started.api = await startApiProcess({ redisUrl: redis.url });
    const api = started.api;
    const warned = await waitFor(
      () => api.logged("Redis may evict queued jobs: set maxmemory-policy to noeviction (CONFIG SET maxmemory-policy noeviction)")[0],
      "the eviction warning",
    );
    expect(warned).toMatchObject({ level: "warn", maxmemory_policy: "allkeys-lru" });
  });

  test("SIGTERM with Redis away: the API and the worker exit without waiting out their drain deadline", async () => {
    const { redis, api } = await apiOnPrivateRedis();
    const worker = startProcess("worker/main.ts", {
      DATABASE_URL: `file:${api.dbPath}`,
      REDIS_URL: redis.url,
      QUEUE_PREFIX: api.prefix,
      REMINDER_SCAN_SECONDS: "3600",
      LOG_LEVEL: "info",
    });
    // The worker says when it is up; wait for that line rather than for a guessed time.
    const reader = worker.stdout.getReader();
    let seen = "";
    await waitFor(async () => {
      const { value } = await reader.read();
      seen += new TextDecoder().decode(value ?? new Uint8Array());
      return seen.includes('"worker started"');
    }, "the worker started");
    reader.releaseLock();
    await redis.stop();
    await fetchWithin(5000, `${api.base}/api/v1/me`, { headers: api.headers }); // something to drain
    api.child.kill("SIGTERM");
    worker.kill("SIGTERM");
    // Both would otherwise sit out their 10 s drain deadline waiting on Redis.
    expect(await exitWithin(api.child, 5000)).toBe(0);
    expect(await exitWithin(worker, 5000)).toBe(0);
  });
});
