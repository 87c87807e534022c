import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { Redis } from "ioredis";
import { createApp } from "../../api/app.ts";
import { createKeyUsage } from "../../api/auth/key-usage.ts";
import { createApiStores } from "../../api/stores.ts";
import { DEFAULT_RATE_LIMITS } from "../../api/limits/request-limits.ts";
import { createRateLimiter } from "../../api/limits/rate-limiter.ts";
import { systemClock } from "../../shared/clock.ts";
import { createLogger } from "../../shared/logger.ts";
import { run } from "../../shared/db/flow.ts";
import { createApiKey } from "../../shared/workspaces.ts";
import { freePort, startPrivateRedis } from "../../scripts/private-redis.ts";
import { createTestApp, expectError, uniquePrefix, type TestApp } from "../support/test-app.ts";
import { waitFor } from "../support/wait.ts";

const opened: TestApp[] = [];
afterAll(async () => {
  for (const app of opened) await app.close();
});

async function appWithDefaultKey(options: Parameters<typeof createTestApp>[0] = {}) {
  const t = await createTestApp(options);
  opened.push(t);
  const { key } = await run(createApiKey(t.database, systemClock, { workspaceSlug: "acme", name: "default-tier", mode: "live", tier: "default" }));
  return { t, key };
}

describe("rate limits", () => {
  test("a default key gets 60 requests a minute; the 61st is 429 with Retry-After", async () => {
    const { t, key } = await appWithDefaultKey();
    for (let i = 1; i <= 60; i++) {
      const response = await t.call("GET", "/api/v1/me", { key });
      expect(response.status).toBe(200);
      expect(response.headers.get("x-ratelimit-limit")).toBe("60");
      expect(response.headers.get("x-ratelimit-remaining")).toBe(String(60 - i));
      expect(Number(response.headers.get("x-ratelimit-reset"))).toBeGreaterThanOrEqual(0);
    }
    const refused = await t.call("GET", "/api/v1/customers", { key });
    expectError(refused, 429, "rate_limited");
    expect(refused.body.error.type).toBe("rate_limit_error");
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
    expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");

    // A test key has its own bucket; a paid key's limit is 600.
    const paid = await t.call("GET", "/api/v1/me", { key: t.keys.test });
    expect(paid.status).toBe(200);
    expect(paid.headers.get("x-ratelimit-limit")).toBe("600");
  });

  test("100 concurrent requests on a fresh paid key are all served, and the key is not locked afterwards", async () => {
    const t = await createTestApp();
    opened.push(t);
    const { key } = await run(createApiKey(t.database, systemClock, { workspaceSlug: "acme", name: "burst", mode: "live", tier: "paid" }));
    const burst = await Promise.all(Array.from({ length: 100 }, () => t.call("GET", "/api/v1/me", { key })));
    expect(burst.map((r) => r.status)).toEqual(Array(100).fill(200));
    const remaining = burst.map((r) => Number(r.headers.get("x-ratelimit-remaining")));
    expect(Math.min(...remaining)).toBeGreaterThanOrEqual(600 - 100 - 9); // at most one lease's worth claimed ahead
    expect((await t.call("GET", "/api/v1/me", { key })).status).toBe(200);
  });

  test("100 concurrent requests on a default key: exactly 60 served, the rest refused", async () => {
    const { t, key } = await appWithDefaultKey();
    const burst = await Promise.all(Array.from({ length: 100 }, () => t.call("GET", "/api/v1/me", { key })));
    expect(burst.filter((r) => r.status === 200)).toHaveLength(60);
    expect(burst.filter((r) => r.status === 429)).toHaveLength(40);
  });

  test("two API instances on one Redis share one bucket", async () => {
    const prefix = uniquePrefix("shared");
    const a = await appWithDefaultKey({ redisPrefix: prefix });
    // The second instance serves the same database file and Redis: a second API process.
    const redis = new Redis(process.env.TEST_REDIS_URL!, { enableOfflineQueue: false });
    await new Promise((resolve) => redis.once("ready", resolve));
    const second = await createApp({ database: a.t.database, redis, clock: systemClock, logger: createLogger("silent"), publicUrl: "http://x", redisPrefix: prefix });
    const viaSecond = (path: string) =>
      second.app.handle(new Request(`http://localhost${path}`, { headers: { authorization: `Bearer ${a.key}` } }));

    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) {
      statuses.push((await a.t.call("GET", "/api/v1/me", { key: a.key })).status);
      statuses.push((await viaSecond("/api/v1/me")).status);
    }
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect((await viaSecond("/api/v1/me")).status).toBe(429);
    expect((await a.t.call("GET", "/api/v1/me", { key: a.key })).status).toBe(429);
    await second.close();
    redis.disconnect();
  });

  test("failed authentication is limited per client address, and a valid key from that address is still served", async () => {
    const { t } = await appWithDefaultKey({ rateLimits: { ...DEFAULT_RATE_LIMITS, failedAuthPerAddress: 5 } });
    for (let i = 0; i < 5; i++) {
      expectError(await t.call("GET", "/api/v1/me", { key: `svc_${"g".repeat(39)}${i}` }), 401, "invalid_api_key");
    }
    const sixth = await t.call("GET", "/api/v1/me", { key: `svc_${"g".repeat(40)}` });
    expectError(sixth, 429, "rate_limited");
    expect(Number(sixth.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    // Guessing cannot go on: every further bad key from the address is refused...
    expectError(await t.call("GET", "/api/v1/me", { key: `svc_${"h".repeat(40)}` }), 429, "rate_limited");
    expectError(await t.call("GET", "/api/v1/me", { key: "not-even-a-key" }), 429, "rate_limited");
    // ...but an integration behind the same address (one NAT) is not locked out with its valid key.
    const valid = await t.call("GET", "/api/v1/me");
    expect(valid.status).toBe(200);
    expect(valid.headers.get("x-ratelimit-limit")).toBe("600");
  });

  test("with Redis unreachable the API keeps serving, limited per process, and readiness says so", async () => {
    const lines: string[] = [];
    const logger = createLogger("info", {}, (line) => lines.push(line));
    const dead = new Redis(`redis://127.0.0.1:${await freePort()}`, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      lazyConnect: true,
      retryStrategy: () => null,
    });
    dead.on("error", () => {});
    const { t, key } = await appWithDefaultKey({ redis: dead, logger });
    for (let i = 0; i < 60; i++) expect((await t.call("GET", "/api/v1/me", { key })).status).toBe(200);
    expectError(await t.call("GET", "/api/v1/me", { key }), 429, "rate_limited");
    const warnings = lines.filter((l) => l.includes("rate limits fall back to this process"));
    expect(warnings).toHaveLength(1); // said once, not per request
    const ready = await t.call("GET", "/api/v1/health/ready", { key: null });
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ checks: { redis: "error" }, rate_limiter: "per_process" });
    dead.disconnect();
  });
});

describe("key usage", () => {
  test("request count, last-used time and address are kept without a write per request", async () => {
    const { t, key } = await appWithDefaultKey();
    const row = async () => {
      const [found] = await t.query<{ request_count: unknown; last_used_at: unknown }>("SELECT request_count, last_used_at FROM api_keys WHERE name = 'default-tier'");
      return { request_count: Number(found!.request_count), last_used_at: Number(found!.last_used_at) };
    };
    for (let i = 0; i < 3; i++) await t.call("GET", "/api/v1/me", { key });
    expect((await row()).request_count).toBe(0); // buffered, not yet written
    await t.usage.flush();
    expect((await row()).request_count).toBe(3);
    expect((await row()).last_used_at).toBeGreaterThan(0);
    await t.call("GET", "/api/v1/me", { key });
    await t.shutdownApp(); // shutdown writes what is buffered
    expect((await row()).request_count).toBe(4);
  });

  test("the periodic sweep writes slices of keys, one transaction per event-loop turn, and loses no count", async () => {
    const { t } = await appWithDefaultKey();
    const stores = createApiStores(t.database, () => {});
    const ids = [t.keyIds.live, t.keyIds.test, t.keyIds.other];
    const counts = async () => {
      const rows = await t.query<{ id: string; request_count: unknown }>(`SELECT id, request_count FROM api_keys WHERE id IN ('${ids.join("','")}')`);
      return Object.fromEntries(rows.map((r) => [r.id, Number(r.request_count)]));
    };
    const before = await counts();
    const writes: number[] = [];
    const store = { ...stores.apiKeys, addUsage: (batch: Iterable<[string, unknown]>) => (writes.push([...batch].length), stores.apiKeys.addUsage(batch as never)) };
    const usage = createKeyUsage(store as typeof stores.apiKeys, systemClock, { sliceKeys: 2 });
    for (const id of ids) for (let i = 0; i < 3; i++) usage.record(id, "10.0.0.1");

    const sweep = usage.sweep();
    expect(writes).toEqual([2]); // the first slice now, the rest on later turns
    await sweep;
    expect(writes).toEqual([2, 1]);
    const after = await counts();
    for (const id of ids) expect(after[id]! - before[id]!).toBe(3);
    usage.record(t.keyIds.live, null);
    await usage.flush();
    expect((await counts())[t.keyIds.live]! - before[t.keyIds.live]!).toBe(4);

    if (t.database.engine === "sqlite") {
      // Another process holds SQLite's write lock: the sweep stops, the counts wait for the next one.
      usage.record(t.keyIds.other, null);
      const other = new Database(t.dbPath!);
      other.exec("BEGIN IMMEDIATE");
      await usage.sweep();
      other.exec("ROLLBACK");
      other.close();
      expect((await counts())[t.keyIds.other]! - before[t.keyIds.other]!).toBe(3);
      await usage.sweep();
      expect((await counts())[t.keyIds.other]! - before[t.keyIds.other]!).toBe(4);
    }
  });
});

describe("the limiter's claims", () => {
  /** A limiter on a Redis prefix of its own (and the test app whose Redis it uses). */
  async function limiterOfItsOwn() {
    const t = await createTestApp();
    opened.push(t);
    const prefix = uniquePrefix("lease");
    return { t, prefix, limiter: createRateLimiter({ redis: t.redis, keyPrefix: prefix, logger: createLogger("silent") }) };
  }

  /** The key's window in Redis: its leases (one member each) and the slots they hold. */
  const windowOf = async (redis: Redis, prefix: string, bucket: string) => ({
    leases: await redis.zcard(`${prefix}:rate:${bucket}`),
    slots: Number(await redis.get(`${prefix}:rate:${bucket}:slots`)),
  });

  test("a lease is one member of the window whatever its size, and the window's counter holds its slots", async () => {
    const { t, prefix, limiter } = await limiterOfItsOwn();
    const limit = 90_000; // lease = limit / 60 = 1,500 slots
    const first = await limiter.consume("key:big", limit);
    expect(first.allowed).toBe(true);
    expect(first.remaining).toBe(limit - 1);
    expect(await windowOf(t.redis, prefix, "key:big")).toEqual({ leases: 1, slots: 1_500 });
    limiter.close();
  });

  test("a limit of a billion a minute claims 5,000 slots at most", async () => {
    const { t, prefix, limiter } = await limiterOfItsOwn();
    expect((await limiter.consume("key:huge", 1_000_000_000)).allowed).toBe(true);
    expect(await windowOf(t.redis, prefix, "key:huge")).toEqual({ leases: 1, slots: 5_000 });
    limiter.close();
  });

  test("leases older than the window give their slots back; a counter lost by hand is summed again from the leases", async () => {
    const { t, prefix, limiter } = await limiterOfItsOwn();
    const [seconds, micros] = await t.redis.time();
    const now = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    // Two leases of another process: 40 slots a minute and a half ago, 15 slots 10 s ago.
    await t.redis.zadd(`${prefix}:rate:key:old`, now - 90_000, "other:1:40", now - 10_000, "other:2:15");
    await t.redis.set(`${prefix}:rate:key:old:slots`, 55);
    const decided = await limiter.consume("key:old", 60); // the default tier: leases of one slot
    expect(decided.remaining).toBe(60 - 15 - 1);
    expect(await windowOf(t.redis, prefix, "key:old")).toEqual({ leases: 2, slots: 16 });
    await t.redis.del(`${prefix}:rate:key:old:slots`);
    expect((await limiter.consume("key:old", 60)).remaining).toBe(60 - 16 - 1);
    expect(await windowOf(t.redis, prefix, "key:old")).toEqual({ leases: 3, slots: 17 });
    limiter.close();
  });

  /** Calls of the window's script Redis has run since `CONFIG RESETSTAT` (by its SHA, or whole the first time). */
  const scriptCalls = async (redis: Redis) => {
    const stats = await redis.info("commandstats");
    const calls = (command: string) => Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
    return calls("evalsha") + calls("eval");
  };

  test("the claims of one moment go to Redis as one call, each window decided as if alone", async () => {
    const { t, prefix, limiter } = await limiterOfItsOwn();
    await limiter.consume("key:warm-up", 600); // the script is loaded: from here on, one EVALSHA per call
    await t.redis.config("RESETSTAT");
    const fresh = Array.from({ length: 50 }, (_, i) => `key:fresh-${i}`);
    const decisions = await Promise.all(fresh.map((name) => limiter.consume(name, 600)));
    expect(await scriptCalls(t.redis)).toBe(1);
    expect(decisions.every((d) => d.allowed && d.remaining === 599)).toBe(true);
    for (const name of fresh) expect(await windowOf(t.redis, prefix, name)).toEqual({ leases: 1, slots: 10 });
    // A default key (leases of one slot, exact) beside them: its window refuses the 61st alone.
    const exact = await Promise.all(Array.from({ length: 61 }, () => limiter.consume("key:exact", 60)));
    expect(exact.filter((d) => d.allowed)).toHaveLength(60);
    limiter.close();
  });

  test("a claim made ahead waits for others, but not once a request needs it; shutting down drops it", async () => {
    const t = await createTestApp();
    opened.push(t);
    const prefix = uniquePrefix("lease");
    const limiter = createRateLimiter({ redis: t.redis, keyPrefix: prefix, logger: createLogger("silent"), refillMs: 60_000 });
    for (let i = 0; i < 5; i++) await limiter.consume("key:ahead", 600); // 5 in hand: the next lease is queued
    await Bun.sleep(20);
    expect(await windowOf(t.redis, prefix, "key:ahead")).toEqual({ leases: 1, slots: 10 }); // still queued
    for (let i = 0; i < 5; i++) await limiter.consume("key:ahead", 600); // the lease in hand is spent
    // Nothing in hand: this request waits for the queued claim, which goes now, not in a minute.
    const waited = await limiter.consume("key:ahead", 600);
    expect(waited).toMatchObject({ allowed: true, remaining: 600 - 11 });
    expect(await windowOf(t.redis, prefix, "key:ahead")).toEqual({ leases: 2, slots: 20 });
    for (let i = 0; i < 5; i++) await limiter.consume("key:ahead", 600); // half of the second lease: the third is queued
    limiter.close(); // a process leaving holds no slots it will never spend
    await Bun.sleep(20);
    expect(await windowOf(t.redis, prefix, "key:ahead")).toEqual({ leases: 2, slots: 20 });
  });

  test("a busy key's next lease is claimed once half the one in hand is spent: the requests after it never wait on Redis, even a hung one", async () => {
    const redisServer = await startPrivateRedis();
    const redis = new Redis(redisServer.url, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
    await new Promise((resolve) => redis.once("ready", resolve));
    const limiter = createRateLimiter({ redis, keyPrefix: "ahead", logger: createLogger("silent"), commandTimeoutMs: 500 });
    const claimed = async () => Number(await redis.get("ahead:rate:key:busy:slots"));
    try {
      const remaining: number[] = [];
      for (let i = 0; i < 4; i++) remaining.push((await limiter.consume("key:busy", 600)).remaining);
      expect(await claimed()).toBe(10); // the paid tier's lease: 10 slots, 6 still in hand
      remaining.push((await limiter.consume("key:busy", 600)).remaining); // 5 in hand: the next lease is claimed now
      await waitFor(async () => (await claimed()) === 20, "the next lease claimed in the background");

      // Redis hangs: the next 9 requests are served from the 15 slots in hand. One that waited
      // for Redis would meet the 500 ms timeout and turn the limiter per-process.
      process.kill(redisServer.pid, "SIGSTOP");
      try {
        for (let i = 0; i < 9; i++) {
          const decision = await limiter.consume("key:busy", 600);
          expect(decision.allowed).toBe(true);
          remaining.push(decision.remaining);
        }
        expect(limiter.mode()).toBe("redis");
      } finally {
        process.kill(redisServer.pid, "SIGCONT");
      }
      // Claiming ahead changes nothing a client sees: one less remaining per request.
      expect(remaining).toEqual(Array.from({ length: 14 }, (_, i) => 599 - i));
    } finally {
      limiter.close();
      redis.disconnect();
      await redisServer.stop();
    }
  });
});
