import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { freePort } from "../../scripts/private-redis.ts";
import { systemClock } from "../../shared/clock.ts";
import { run } from "../../shared/db/flow.ts";
import { createApiKey, createWorkspace } from "../../shared/workspaces.ts";
import { waitUntilUp } from "../support/api-process.ts";
import { exitWithin, startProcess } from "../support/processes.ts";
import { testPostgresUrl } from "../support/postgres.ts";
import { waitFor } from "../support/wait.ts";
import { freshTestDatabase, testRedisUrl, uniquePrefix, type TestDatabase } from "../support/test-app.ts";

/**
 * Two real API processes (`api/main.ts`) on one PostgreSQL database and one Redis: what
 * `docker compose --scale api=2` runs. Every guarantee that a single process keeps with its
 * own state must hold across processes through the database.
 */
const postgres = testPostgresUrl();

describe.skipIf(!postgres)("two API processes on one PostgreSQL database", () => {
  let database: TestDatabase;
  let key: string;
  const prefix = uniquePrefix("scale");
  const apis: { child: ReturnType<typeof startProcess>; base: string }[] = [];
  const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: null });

  beforeAll(async () => {
    database = await freshTestDatabase("postgres");
    await run(createWorkspace(database.database, systemClock, { slug: "acme", name: "Acme" }));
    key = (await run(createApiKey(database.database, systemClock, { workspaceSlug: "acme", name: "scale", mode: "live", tier: "paid" }))).key;
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      const child = startProcess("api/main.ts", {
        PORT: String(port),
        DATABASE_URL: database.url!,
        DATABASE_POOL_SIZE: "5",
        REDIS_URL: testRedisUrl(),
        QUEUE_PREFIX: prefix,
        SECRET_KEY: "s".repeat(40),
      });
      apis.push({ child, base: `http://127.0.0.1:${port}/api/v1` });
    }
    await Promise.all(apis.map((api) => waitUntilUp(api.base.replace(/\/api\/v1$/, ""), api.child)));
  });

  afterAll(async () => {
    for (const api of apis) {
      api.child.kill("SIGTERM");
      await exitWithin(api.child, 15_000).catch(() => {});
    }
    redis.disconnect();
    await database?.cleanup();
  });

  const call = (i: number, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(`${apis[i % 2]!.base}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

  test("200 concurrent creates across both get distinct display ids and created_at, and a pagination walk sees each once", async () => {
    const created = await Promise.all(Array.from({ length: 200 }, (_, i) => call(i, "POST", "/customers", { name: `Scale ${i}` })));
    expect(created.map((r) => r.status)).toEqual(Array(200).fill(201));
    const displayIds = created.map((r) => r.body.display_id as number);
    expect(new Set(displayIds).size).toBe(200);
    expect(Math.min(...displayIds)).toBe(1);
    expect(Math.max(...displayIds)).toBe(200);
    expect(new Set(created.map((r) => r.body.created_at)).size).toBe(200);

    // Walk with pages fetched from alternating processes while more creates land.
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; ; page++) {
      const query: string = `/customers?limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
      const [listed] = await Promise.all([call(page, "GET", query), call(page + 1, "POST", "/customers", { name: `During walk ${page}` })]);
      expect(listed.status).toBe(200);
      seen.push(...listed.body.data.map((c: { id: string }) => c.id));
      if (!listed.body.has_more) break;
      cursor = listed.body.next_cursor;
    }
    const createdIds = new Set(created.map((r) => r.body.id as string));
    const walked = seen.filter((id) => createdIds.has(id));
    expect(new Set(seen).size).toBe(seen.length); // never twice
    expect(walked.length).toBe(200); // none of the first 200 skipped
  });

  test("one Idempotency-Key sent to both processes at once creates one record", async () => {
    const before = await database.count("customers");
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => call(i, "POST", "/customers", { name: "Once across processes" }, { "idempotency-key": "across-1" })),
    );
    expect(await database.count("customers")).toBe(before + 1);
    const created = responses.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((r) => r.body.id)).size).toBe(1);
    for (const r of responses.filter((r) => r.status !== 201)) expect(r.body.error.code).toBe("idempotency_key_in_use");
    const replay = await call(0, "POST", "/customers", { name: "Once across processes" }, { "idempotency-key": "across-1" });
    expect(replay.body.id).toBe(created[0]!.body.id);
  });

  test("onboardings made in batches on both processes: one key sent to both creates one, and 200 creates get display ids in a row", async () => {
    const customer = (await call(0, "POST", "/customers", { name: "Batched across processes" })).body.id;
    const before = await database.count("onboardings");
    const once = await Promise.all(Array.from({ length: 20 }, (_, i) => call(i, "POST", "/onboardings", { customer_id: customer, notes: "once" }, { "idempotency-key": "onb-across-1" })));
    expect(await database.count("onboardings")).toBe(before + 1);
    const created = once.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((r) => r.body.id)).size).toBe(1);
    for (const r of once.filter((r) => r.status !== 201)) expect(r.body.error.code).toBe("idempotency_key_in_use");

    const many = await Promise.all(Array.from({ length: 200 }, (_, i) => call(i, "POST", "/onboardings", { customer_id: customer }, { "idempotency-key": `onb-many-${i}` })));
    expect(many.map((r) => r.status)).toEqual(Array(200).fill(201));
    const displayIds = many.map((r) => r.body.display_id as number).sort((a, b) => a - b);
    expect(displayIds).toEqual(displayIds.map((_, i) => created[0]!.body.display_id + 1 + i));
    expect(await database.count("events", "type = 'onboarding.created'")).toBe(before + 201);
  });

  test("both relays hand each outbox row to Redis exactly once", async () => {
    const customer = (await call(0, "POST", "/customers", { name: "Relayed" })).body;
    const onboardings = await Promise.all(Array.from({ length: 40 }, (_, i) => call(i, "POST", "/onboardings", { customer_id: customer.id })));
    // Entering launch with a live key queues two launch automations (a DM and a calendar entry) each.
    const patched = await Promise.all(onboardings.map((o, i) => call(i, "PATCH", `/onboardings/${o.body.id}`, { phase: "launch" })));
    expect(patched.map((r) => r.status)).toEqual(Array(40).fill(200));
    await waitFor(async () => (await database.count("outbox", "relayed_at IS NULL")) === 0, "every outbox row relayed", 15_000);
    expect(await database.count("outbox", "relayed_at IS NULL")).toBe(0);

    const outbound = new Queue("outbound", { connection: redis, prefix });
    const jobs = await outbound.getJobs(["waiting", "delayed", "active", "completed", "failed", "prioritized"]);
    const launchJobs = jobs.filter((j) => j.name === "launch.slack_dm" || j.name === "launch.calendar_entry");
    expect(launchJobs).toHaveLength(80);
    expect(new Set(launchJobs.map((j) => j.id)).size).toBe(80);
    expect(await database.count("outbox", "name IN ('launch.slack_dm', 'launch.calendar_entry')")).toBe(80);
    // The transition records (the timeline's entries) are written by the changes themselves, one each, by whichever process.
    expect(await database.count("phase_transitions", "to_phase = 'launch'")).toBe(40);
    await outbound.close();
  });

  test("key usage flushed by both processes adds up", async () => {
    await Bun.sleep(1500); // each process flushes its counts every second: let earlier tests' land
    const [before] = await database.query<{ request_count: number }>("SELECT request_count FROM api_keys WHERE name = 'scale'");
    await Promise.all(Array.from({ length: 30 }, (_, i) => call(i, "GET", "/me")));
    const count = async () => (await database.query<{ request_count: number }>("SELECT request_count FROM api_keys WHERE name = 'scale'"))[0]!.request_count;
    await waitFor(async () => (await count()) >= before!.request_count + 30, "both processes' usage flushed", 5_000).catch(() => {});
    expect(await count()).toBe(before!.request_count + 30);
  });
});
