import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { Redis } from "ioredis";
import postgres from "postgres";
import { OnboardingApiError, OnboardingClient, OnboardingConnectionError } from "../../client";
import { freePort } from "../../scripts/private-redis.ts";
import { testRedisUrl } from "../support/test-app.ts";
import { rawHeader, rawStatus, startRecordingProxy } from "./support/recording-proxy.ts";
import { extraKey, startApiProcess, type ApiProcess } from "./support/service.ts";

/**
 * Retries against the real API process, seen on the wire: a recording proxy between the client
 * and the API keeps every request and answer, and loses or holds answers when told. Nothing
 * of the client is stood in for; the service decides every answer.
 */
let api: ApiProcess;
let proxy: Awaited<ReturnType<typeof startRecordingProxy>>;
beforeAll(async () => {
  // A write waits at most 300 ms for SQLite's lock before answering 503 (PostgreSQL: lock_timeout, 3 s).
  api = await startApiProcess({ env: { DATABASE_BUSY_TIMEOUT_MS: "300" } });
});
afterAll(async () => {
  await api?.stop();
});
afterEach(() => proxy?.stop());

/** Waits until the proxy has passed on `n` requests. */
async function waitForExchanges(n: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (proxy.exchanges.filter((e) => e.request !== "").length < n && Date.now() < deadline) await Bun.sleep(2);
}

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

async function throughProxy(options: { maxRetries?: number; timeoutMs?: number; apiKey?: string } = {}) {
  proxy = await startRecordingProxy({ host: "127.0.0.1", port: api.port });
  return new OnboardingClient({ apiKey: options.apiKey ?? api.key, baseUrl: proxy.base, ...options });
}

describe("retries keep one Idempotency-Key", () => {
  test("the answer to a create is lost: the client sends it again with the same key and gets the stored answer; one customer exists", async () => {
    const client = await throughProxy();
    proxy.loseNextAnswers(1);
    const customer = await client.customers.create({ name: "Lost Answer Co" });

    expect(proxy.exchanges.map((e) => e.fate)).toEqual(["lost", "passed"]);
    const [lost, replay] = proxy.exchanges;
    expect(rawStatus(lost!.answer)).toBe(201); // the API created it; the client never heard
    const key = rawHeader(lost!.request, "idempotency-key");
    expect(key).toMatch(uuid);
    expect(rawHeader(replay!.request, "idempotency-key")).toBe(key);
    expect(rawStatus(replay!.answer)).toBe(201);
    expect(rawHeader(replay!.answer, "idempotent-replay")).toBe("true");
    // The replay is the first answer, byte for byte.
    expect(replay!.answer.split("\r\n\r\n")[1]).toBe(lost!.answer.split("\r\n\r\n")[1]!);

    const rows = await api.query<{ id: string }>("SELECT id FROM customers WHERE name = ?", "Lost Answer Co");
    expect(rows.map((r) => r.id)).toEqual([customer.id]);
  });

  test("a key the caller gives is the one sent, on every attempt; a nested create (a contact) retries the same way", async () => {
    const client = await throughProxy();
    const customer = await client.customers.create({ name: "Keyed Co" });
    proxy.exchanges.length = 0;
    proxy.loseNextAnswers(2);
    const contact = await client.contacts.create(customer.id, { name: "Kay" }, { idempotencyKey: "contact-kay-1" });

    expect(proxy.exchanges.map((e) => e.fate)).toEqual(["lost", "lost", "passed"]);
    expect(proxy.exchanges.map((e) => rawHeader(e.request, "idempotency-key"))).toEqual(["contact-kay-1", "contact-kay-1", "contact-kay-1"]);
    expect(rawHeader(proxy.exchanges[2]!.answer, "idempotent-replay")).toBe("true");
    expect(await api.count("contacts", "customer_id = ?", customer.id)).toBe(1);
    expect((await client.contacts.list(customer.id).toArray()).map((c) => c.id)).toEqual([contact.id]);
  });

  test("every answer lost: OnboardingConnectionError after 1 + maxRetries attempts, and the key it names replays the create later", async () => {
    const client = await throughProxy({ maxRetries: 1 });
    const customer = await client.customers.create({ name: "Unlucky Co" });
    proxy.loseNextAnswers(2);
    const error = (await client.onboardings.create({ customer_id: customer.id }).catch((e: unknown) => e)) as OnboardingConnectionError;
    expect(error).toBeInstanceOf(OnboardingConnectionError);
    expect(error.code).toBe("connection_failed");
    expect(error.attempts).toBe(2);
    expect(error.idempotencyKey).toMatch(uuid);

    const onboardings = proxy.exchanges.filter((e) => e.request.startsWith("POST /api/v1/onboardings "));
    expect(onboardings.map((e) => [e.fate, rawStatus(e.answer)])).toEqual([["lost", 201], ["lost", 201]]);
    const again = await client.onboardings.create({ customer_id: customer.id }, { idempotencyKey: error.idempotencyKey });
    expect(rawHeader(proxy.exchanges.at(-1)!.answer, "idempotent-replay")).toBe("true");
    expect((await api.query<{ id: string }>("SELECT id FROM onboardings WHERE customer_id = ?", customer.id)).map((r) => r.id)).toEqual([again.id]);
  });

  test("an answer that does not come in time: the attempt is abandoned at timeoutMs and retried with the same key", async () => {
    const client = await throughProxy({ timeoutMs: 1000 });
    proxy.hangNextAnswers(1);
    const started = Date.now();
    const customer = await client.customers.create({ name: "Slow Answer Co" });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(proxy.exchanges.map((e) => e.fate)).toEqual(["hung", "passed"]);
    expect(rawHeader(proxy.exchanges[1]!.request, "idempotency-key")).toBe(rawHeader(proxy.exchanges[0]!.request, "idempotency-key")!);
    expect(await api.count("customers", "name = ?", "Slow Answer Co")).toBe(1);
    expect(customer.name).toBe("Slow Answer Co");

    proxy.hangNextAnswers(1);
    await expect(client.me({ maxRetries: 0 })).rejects.toMatchObject({ name: "OnboardingConnectionError", code: "timeout", attempts: 1 });
  });

  test("the caller's signal ends a call at once, also while it waits to retry; nothing is retried after it", async () => {
    const client = await throughProxy({ timeoutMs: 10_000 });
    proxy.hangNextAnswers(1);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const started = Date.now();
    const error = await client.me({ signal: controller.signal }).catch((e: unknown) => e);
    expect((error as Error).name).toBe("AbortError");
    expect(Date.now() - started).toBeLessThan(5000); // the attempt's own timeout is 10 s
    await Bun.sleep(300);
    expect(proxy.exchanges).toHaveLength(1);

    // Aborted during the pause before a retry: nothing listens, so every attempt fails at once.
    const nowhere = new OnboardingClient({ apiKey: api.key, baseUrl: `http://127.0.0.1:${await freePort()}`, maxRetries: 5 });
    const waiting = Date.now();
    const aborted = await nowhere.me({ signal: AbortSignal.timeout(150) }).catch((e: unknown) => e);
    expect((aborted as Error).name).toBe("TimeoutError");
    expect(Date.now() - waiting).toBeLessThan(3000); // five retries' pauses add up to more than 7 s
  });

  test("a refusal (4xx other than 429 and idempotency_key_in_use) is answered at once, not retried", async () => {
    const client = await throughProxy();
    await expect(client.customers.retrieve("cus_none")).rejects.toMatchObject({ status: 404, code: "customer_not_found" });
    await expect(client.customers.update(1, { slug: "Not A Slug" })).rejects.toMatchObject({ status: 400, code: "invalid_string", field: "slug" });
    expect(proxy.exchanges).toHaveLength(2);
  });

  test("a 503 (the database's write lock held elsewhere) is retried after its Retry-After, with the same key, and the create happens once", async () => {
    const client = await throughProxy();
    const release = await holdCustomersLock();
    try {
      const creating = client.customers.create({ name: "Busy Day Co" });
      const deadline = Date.now() + 10_000;
      while (!proxy.exchanges.some((e) => rawStatus(e.answer) >= 500) && Date.now() < deadline) await Bun.sleep(10);
      await release();
      const customer = await creating;
      expect(customer.name).toBe("Busy Day Co");
    } finally {
      await release();
    }
    // 503 `service_unavailable` with Retry-After (SQLite: the busy wait ran out; PostgreSQL: lock_timeout).
    expect(proxy.exchanges.map((e) => rawStatus(e.answer))).toEqual([503, 201]);
    const [busy, served] = proxy.exchanges;
    expect(served!.sentAt - busy!.answeredAt!).toBeGreaterThanOrEqual(Number(rawHeader(busy!.answer, "retry-after")) * 1000);
    expect(rawHeader(served!.request, "idempotency-key")).toBe(rawHeader(busy!.request, "idempotency-key")!);
    expect(await api.count("customers", "name = ?", "Busy Day Co")).toBe(1);
  });

  test("409 idempotency_key_in_use (the same key still running) is retried after its Retry-After and answers the one record", async () => {
    const client = await throughProxy();
    const release = await holdCustomersLock(); // the first request stays in flight, waiting for the lock
    const key = `in-use-${crypto.randomUUID()}`;
    let answers: Awaited<ReturnType<typeof client.customers.create>>[];
    try {
      const first = client.customers.create({ name: "In Use Co" }, { idempotencyKey: key });
      await waitForExchanges(1);
      const second = client.customers.create({ name: "In Use Co" }, { idempotencyKey: key });
      const deadline = Date.now() + 10_000;
      while (!proxy.exchanges.some((e) => rawStatus(e.answer) === 409) && Date.now() < deadline) await Bun.sleep(5);
      await release();
      answers = await Promise.all([first, second]);
    } finally {
      await release();
    }
    const inUse = proxy.exchanges.find((e) => rawStatus(e.answer) === 409)!;
    expect(inUse.answer).toContain('"code":"idempotency_key_in_use"');
    expect(rawHeader(inUse.answer, "retry-after")).toBe("1");
    const retried = proxy.exchanges.filter((e) => e.sentAt > inUse.answeredAt!);
    expect(retried.length).toBeGreaterThanOrEqual(1);
    expect(Math.min(...retried.map((e) => e.sentAt)) - inUse.answeredAt!).toBeGreaterThanOrEqual(1000);
    expect(proxy.exchanges.every((e) => rawHeader(e.request, "idempotency-key") === key)).toBe(true);
    expect(answers[1]!.id).toBe(answers[0]!.id);
    expect(await api.count("customers", "name = ?", "In Use Co")).toBe(1);
  });

  test("nothing listens: connection refused on every attempt, with backoff between them", async () => {
    const port = await freePort();
    const client = new OnboardingClient({ apiKey: api.key, baseUrl: `http://127.0.0.1:${port}` });
    const started = Date.now();
    const error = (await client.me().catch((e: unknown) => e)) as OnboardingConnectionError;
    expect(error).toBeInstanceOf(OnboardingConnectionError);
    expect({ code: error.code, attempts: error.attempts, idempotencyKey: error.idempotencyKey }).toEqual({ code: "connection_failed", attempts: 3, idempotencyKey: undefined });
    expect(error.cause).toBeDefined();
    // Two pauses: at least 250 ms and 500 ms (half of each jittered step).
    expect(Date.now() - started).toBeGreaterThanOrEqual(750);
  });
});

/** Holds the customers table's write lock from outside the API until the answer is called. */
async function holdCustomersLock(): Promise<() => Promise<void>> {
  if (api.database.database.engine === "sqlite") {
    api.db.$client.exec("BEGIN IMMEDIATE");
    let held = true;
    return async () => {
      if (held) api.db.$client.exec("COMMIT");
      held = false;
    };
  }
  const sql = postgres(api.databaseUrl, { max: 1, onnotice: () => {} });
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked!: () => void;
  const isLocked = new Promise<void>((resolve) => (locked = resolve));
  const transaction = sql.begin(async (tx) => {
    await tx`LOCK TABLE customers IN ACCESS EXCLUSIVE MODE`;
    locked();
    await released;
  });
  await isLocked;
  return async () => {
    release();
    await transaction;
    await sql.end();
  };
}

describe("429: the client waits as Retry-After says", () => {
  /**
   * The key's window is made full with requests of 57 seconds ago (the limiter's own Redis
   * set: a 60-second rolling window, and no setting shortens it or lowers a tier's limit), so
   * the service refuses with `Retry-After: 3` and frees the window three seconds later.
   */
  async function fillWindow(keyId: string, limit: number) {
    const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: 1 });
    try {
      const [seconds, micros] = await redis.time();
      const longAgo = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000) - 57_000;
      // One lease of every slot (api/limits/rate-limiter.ts): the window's member and its counter.
      await redis.zadd(`${api.prefix}:rate:key:${keyId}`, longAgo, `test:1:${limit}`);
      await redis.pexpire(`${api.prefix}:rate:key:${keyId}`, 60_000);
      await redis.set(`${api.prefix}:rate:key:${keyId}:slots`, limit, "PX", 60_000);
    } finally {
      redis.disconnect();
    }
  }

  test("a 429 with Retry-After: 3 is retried no sooner than 3 s later, and succeeds", async () => {
    const limited = await extraKey(api, { name: "default-tier", tier: "default" });
    await fillWindow(limited.id, 60);
    const client = await throughProxy({ apiKey: limited.key });
    const me = await client.me();
    expect(me.api_key.id).toBe(limited.id);

    expect(proxy.exchanges.map((e) => rawStatus(e.answer))).toEqual([429, 200]);
    const [refused, served] = proxy.exchanges;
    const retryAfter = Number(rawHeader(refused!.answer, "retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(2);
    expect(served!.sentAt - refused!.answeredAt!).toBeGreaterThanOrEqual(retryAfter * 1000);
  });

  test("with no retries left the 429 is the error, with its Retry-After", async () => {
    const limited = await extraKey(api, { name: "default-tier-2", tier: "default" });
    await fillWindow(limited.id, 60);
    const client = await throughProxy({ apiKey: limited.key, maxRetries: 0 });
    const error = (await client.customers.list().toArray().catch((e: unknown) => e)) as OnboardingApiError;
    expect(error).toBeInstanceOf(OnboardingApiError);
    expect({ status: error.status, type: error.type, code: error.code }).toEqual({ status: 429, type: "rate_limit_error", code: "rate_limited" });
    expect(error.retryAfter).toBeGreaterThanOrEqual(1);
    expect(error.requestId).toMatch(/^req_/);
    expect(proxy.exchanges).toHaveLength(1);
  });
});
