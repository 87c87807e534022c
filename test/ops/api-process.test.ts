import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { freePort, startPrivateRedis, type PrivateRedis } from "../../scripts/private-redis.ts";
import { startApiProcess, type ApiProcess } from "../support/api-process.ts";
import { exitWithin, readUntil, startProcess } from "../support/processes.ts";
import { freshTestDatabase, testRedisUrl, uniquePrefix, type TestDatabase } from "../support/test-app.ts";
import { systemClock } from "../../shared/clock.ts";
import { run } from "../../shared/db/flow.ts";
import { createApiKey, createWorkspace } from "../../shared/workspaces.ts";
import { storedActivity } from "../support/activity.ts";

/** The real entry point over real HTTP: what a client of `npm start` meets. */
const database = await freshTestDatabase();
await run(createWorkspace(database.database, systemClock, { slug: "acme", name: "Acme" }));
const { key } = await run(createApiKey(database.database, systemClock, { workspaceSlug: "acme", name: "http-client", mode: "live", tier: "paid" }));
const prefix = uniquePrefix("proc");
const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: null });
afterAll(async () => {
  redis.disconnect();
  await database.cleanup();
});

describe("the API process", () => {
  test("serves over HTTP, refuses oversized bodies, and drains on SIGTERM", async () => {
    const port = await freePort();
    const child = startProcess("api/main.ts", {
      PORT: String(port),
      DATABASE_URL: database.url ?? `file:${database.path}`,
      REDIS_URL: testRedisUrl(),
      QUEUE_PREFIX: prefix,
      ADMIN_TOKEN: "admin-token-0123456789abcdef",
      SECRET_KEY: "s".repeat(40),
    });
    const base = `http://127.0.0.1:${port}/api/v1`;
    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    const deadline = Date.now() + 10_000;
    let up = false;
    while (!up && Date.now() < deadline) {
      up = await fetch(`${base}/health`).then((r) => r.ok, () => false);
      if (!up) await Bun.sleep(50);
    }
    expect(up ? "up" : "the API did not answer /health within 10 s").toBe("up");

    const customer = await fetch(`${base}/customers`, { method: "POST", headers, body: JSON.stringify({ name: "Over HTTP" }) });
    expect(customer.status).toBe(201);
    const { id } = (await customer.json()) as { id: string };
    const onboarding = (await (await fetch(`${base}/onboardings`, { method: "POST", headers, body: JSON.stringify({ customer_id: id }) })).json()) as { id: string };
    expect((await fetch(`${base}/onboardings/${onboarding.id}`, { method: "PATCH", headers, body: '{"phase":"launch"}' })).status).toBe(200);

    const big = await fetch(`${base}/customers`, { method: "POST", headers, body: JSON.stringify({ name: "x", metadata: { b: "x".repeat(2 * 1024 * 1024) } }) });
    expect(big.status).toBe(413);
    expect(((await big.json()) as { error: { code: string } }).error.code).toBe("body_too_large");

    const wrongMethod = await fetch(`${base}/customers`, { method: "PUT", headers });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("request-id")).toMatch(/^req_/);

    child.kill("SIGTERM");
    expect(await exitWithin(child, 10_000)).toBe(0);

    // Drained: key usage written, every outbox row handed to BullMQ, every activity entry written.
    const [usage] = await database.query<{ request_count: number }>("SELECT request_count FROM api_keys WHERE name = 'http-client'");
    expect(usage!.request_count).toBe(4); // the 405 never reaches authentication
    expect(await database.count("outbox", "relayed_at IS NULL")).toBe(0);
    const records = new Queue("records", { connection: redis, prefix });
    const jobs = await records.getJobs(["waiting"]);
    // The three changes wrote their entries in their own transactions; the refused body's was
    // written by the shutdown's flush, in a page: nothing of it went to the outbox.
    expect(jobs.filter((j) => j.name === "activity.batch")).toHaveLength(0);
    expect((await storedActivity(database)).map(({ method, status }) => ({ method, status }))).toEqual([
      { method: "POST", status: 201 },
      { method: "POST", status: 201 },
      { method: "PATCH", status: 200 },
      { method: "POST", status: 413 },
    ]);
    // The PATCH's phase change wrote its transition (the timeline's entry) in its own transaction, no job, no copy.
    expect(jobs.filter((j) => j.name === "timeline.phase_changed")).toHaveLength(0);
    expect(await database.count("phase_transitions")).toBe(1);
    expect(await database.count("timeline_events")).toBe(0);
    await records.close();
  });
});

describe("DATABASE_URL at start-up", () => {
  test("an unknown scheme stops the API and the worker with a message naming the variable, creating nothing", async () => {
    const cwd = process.cwd();
    for (const entry of ["api/main.ts", "worker/main.ts"] as const) {
      const child = Bun.spawn([process.execPath, entry], {
        env: { ...process.env, DATABASE_URL: "mysql://root@127.0.0.1/onboarding", REDIS_URL: testRedisUrl(), LOG_LEVEL: "warn" },
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe",
      });
      expect(await exitWithin(child, 10_000)).toBe(78);
      expect(await new Response(child.stderr).text()).toContain("DATABASE_URL has the unknown scheme 'mysql:'");
    }
    expect(existsSync(`${cwd}/mysql:`)).toBe(false);
  });

  test("a PostgreSQL that does not answer stops start-up with a message and exit 69, and is never read as a file path", async () => {
    const nobody = await freePort();
    const child = Bun.spawn([process.execPath, "api/main.ts"], {
      env: { ...process.env, DATABASE_URL: `postgres://onboarding@127.0.0.1:${nobody}/onboarding`, REDIS_URL: testRedisUrl(), LOG_LEVEL: "warn" },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(await exitWithin(child, 15_000)).toBe(69);
    expect(await new Response(child.stderr).text()).toContain(`Database unavailable: PostgreSQL at 127.0.0.1:${nobody}/onboarding did not answer`);
    expect(existsSync(`${process.cwd()}/postgres:`)).toBe(false);
  });
});

describe("the queue prefix's installation marker in a shared Redis", () => {
  // One private Redis, two installations (a database each), the same prefix.
  let redisServer: PrivateRedis;
  const started: ApiProcess[] = [];
  const installationOf = async (db: TestDatabase) => (await db.query<{ id: string }>("SELECT id FROM installation"))[0]!.id;
  /** api/main.ts or worker/main.ts over `db`, expected to refuse: its exit code and what it said. */
  async function refused(entry: "api/main.ts" | "worker/main.ts", db: TestDatabase, env: Record<string, string> = {}) {
    const child = Bun.spawn([process.execPath, entry], {
      env: { ...process.env, PORT: String(await freePort()), DATABASE_URL: db.url ?? `file:${db.path}`, REDIS_URL: redisServer.url, QUEUE_PREFIX: "shared", SECRET_KEY: "s".repeat(40), LOG_LEVEL: "warn", ...env },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    return { code: await exitWithin(child, 15_000), stderr: await new Response(child.stderr).text() };
  }
  beforeAll(async () => {
    redisServer = await startPrivateRedis();
  });
  afterAll(async () => {
    for (const api of started.reverse()) await api.stop();
    await redisServer?.stop();
  });

  test("the first installation marks the prefix; its further API and worker processes start on it", async () => {
    const first = await startApiProcess({ redisUrl: redisServer.url, prefix: "shared" });
    started.push(first);
    const id = await installationOf(first.database);
    expect(id).toMatch(/^ins_/);
    expect(first.logged("api listening")[0]).toMatchObject({ installation_id: id, queue_prefix: "shared" });
    const check = new Redis(redisServer.url);
    expect(JSON.parse((await check.get("shared:installation"))!)).toMatchObject({ installation_id: id });
    check.disconnect();

    const second = await startApiProcess({ redisUrl: redisServer.url, beside: { database: first.database, key: first.key, prefix: "shared" } });
    started.push(second);
    expect((await fetch(`${second.base}/api/v1/me`, { headers: second.headers })).status).toBe(200);
    expect(second.logged("api listening")[0]).toMatchObject({ installation_id: id });

    const worker = startProcess("worker/main.ts", { DATABASE_URL: first.databaseUrl, REDIS_URL: redisServer.url, QUEUE_PREFIX: "shared", SECRET_KEY: "s".repeat(40), LOG_LEVEL: "info" });
    try {
      const out = await readUntil(worker.stdout, /"msg":"worker started"/, 15_000);
      expect(out).toContain(`"installation_id":"${id}"`);
    } finally {
      worker.kill("SIGTERM");
      expect(await exitWithin(worker, 15_000)).toBe(0);
    }
  }, 60_000);

  test("another installation's API and worker refuse the prefix, naming both installations and the way out", async () => {
    const other = await freshTestDatabase();
    try {
      for (const entry of ["api/main.ts", "worker/main.ts"] as const) {
        const { code, stderr } = await refused(entry, other);
        expect({ entry, code }).toEqual({ entry, code: 78 });
        expect(stderr).toContain(`The queue prefix 'shared' in the Redis at ${redisServer.url} belongs to another installation (${await installationOf(started[0]!.database)}`);
        expect(stderr).toContain(`this one is ${await installationOf(other)}`);
        expect(stderr).toContain("Set QUEUE_PREFIX to a prefix of this installation's own, or, if that installation is gone for good, start once with QUEUE_PREFIX_TAKEOVER=1.");
      }
    } finally {
      await other.cleanup();
    }
    // The first installation never noticed.
    expect((await fetch(`${started[0]!.base}/api/v1/health`)).status).toBe(200);
  }, 60_000);

  test("under a prefix of its own the other installation runs beside the first", async () => {
    const other = await startApiProcess({ redisUrl: redisServer.url, prefix: "other" });
    started.push(other);
    expect(other.logged("api listening")[0]).toMatchObject({ queue_prefix: "other", installation_id: await installationOf(other.database) });
    for (const api of [started[0]!, other]) expect((await fetch(`${api.base}/api/v1/me`, { headers: api.headers })).status).toBe(200);
  }, 60_000);

  test("a Redis restarted without its data is marked again as the processes reconnect", async () => {
    const port = redisServer.port;
    await redisServer.stop();
    redisServer = await startPrivateRedis({ port });
    const check = new Redis(redisServer.url);
    try {
      const deadline = Date.now() + 15_000;
      let marker: string | null = null;
      while (marker === null && Date.now() < deadline) {
        marker = await check.get("shared:installation");
        if (marker === null) await Bun.sleep(100);
      }
      expect(JSON.parse(marker ?? "{}")).toMatchObject({ installation_id: await installationOf(started[0]!.database) });
    } finally {
      check.disconnect();
    }
    // Both of its API processes are still up, and so is the other installation under its own prefix.
    for (const api of started) expect((await fetch(`${api.base}/api/v1/health`)).status).toBe(200);
  }, 60_000);

  test("a running process checks again: a marker deleted is written back, a marker taken over stops it", async () => {
    const { claimQueuePrefix, guardQueuePrefix, QueuePrefixTaken } = await import("../../shared/jobs/queue-prefix-owner.ts");
    const { createLogger } = await import("../../shared/logger.ts");
    const prefix = uniquePrefix("guarded");
    const redis = new Redis(redisServer.url);
    const other = new Redis(redisServer.url);
    const taken: Error[] = [];
    try {
      await guardQueuePrefix(redis, {
        prefix,
        redisUrl: redisServer.url,
        installation: { id: "ins_GUARDED", database: "guarded" },
        takeover: false,
        logger: createLogger("silent"),
        waitMs: null,
        recheckMs: 100,
        onTaken: (error) => taken.push(error),
      });
      await other.del(`${prefix}:installation`);
      const until = async (done: () => Promise<boolean>) => {
        const deadline = Date.now() + 5000;
        while (!(await done()) && Date.now() < deadline) await Bun.sleep(50);
      };
      await until(async () => (await other.get(`${prefix}:installation`)) !== null);
      expect(JSON.parse((await other.get(`${prefix}:installation`))!)).toMatchObject({ installation_id: "ins_GUARDED" });
      expect(taken).toEqual([]);
      const claimed = await claimQueuePrefix(other, { prefix, redisUrl: redisServer.url, installation: { id: "ins_HEIR", database: "heir" }, takeover: true });
      expect(claimed.outcome).toBe("taken_over");
      await until(async () => taken.length > 0);
      expect(taken[0]).toBeInstanceOf(QueuePrefixTaken);
      expect(taken[0]!.message).toContain("belongs to another installation (ins_HEIR");
    } finally {
      redis.disconnect();
      other.disconnect();
    }
  }, 30_000);

  test("QUEUE_PREFIX_TAKEOVER=1 takes the prefix over, and says so", async () => {
    const heir = await startApiProcess({ redisUrl: redisServer.url, prefix: "shared", env: { QUEUE_PREFIX_TAKEOVER: "1" } });
    started.push(heir);
    const [line] = heir.logged("queue prefix taken over from another installation (QUEUE_PREFIX_TAKEOVER)");
    expect(line).toMatchObject({ queue_prefix: "shared", installation_id: await installationOf(heir.database), previous_installation_id: await installationOf(started[0]!.database) });
    const check = new Redis(redisServer.url);
    expect(JSON.parse((await check.get("shared:installation"))!)).toMatchObject({ installation_id: await installationOf(heir.database) });
    check.disconnect();
  }, 60_000);
});
