import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { canonicalJson } from "../../api/idempotency/fingerprint.ts";
import { requestFingerprint } from "../../api/idempotency/fingerprint.ts";
import { run, use } from "../../shared/db/flow.ts";
import { createTestApp, expectError, ManualClock, testEngine, type TestApp } from "../support/test-app.ts";

const clock = new ManualClock();
let t: TestApp;
let customerId: string;
beforeAll(async () => {
  t = await createTestApp({ clock });
  customerId = (await t.call("POST", "/api/v1/customers", { body: { name: "Acme" } })).body.id;
});
afterAll(() => t.close());

const count = (table: string) => t.count(table);
const post = (path: string, body: unknown, key: string, apiKey = t.keys.live) =>
  t.call("POST", path, { body, key: apiKey, headers: { "idempotency-key": key } });

describe("idempotency", () => {
  test("20 concurrent POSTs with one key and body create exactly one record", async () => {
    const before = await count("onboardings");
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => post("/api/v1/onboardings", { customer_id: customerId, notes: "once" }, "concurrent-1")),
    );
    expect(await count("onboardings")).toBe(before + 1);
    const created = responses.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((r) => r.body.id)).size).toBe(1);
    for (const r of responses) {
      if (r.status === 201) continue;
      expectError(r, 409, "idempotency_key_in_use");
    }
  });

  test("a replay returns the first success byte for byte, with Idempotent-Replay", async () => {
    const first = await post("/api/v1/customers", { name: "Replayed", slug: "replayed" }, "replay-1");
    clock.advanceSeconds(5);
    const again = await post("/api/v1/customers", { slug: "replayed", name: "Replayed" }, "replay-1"); // key order differs
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replay")).toBeNull();
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get("idempotent-replay")).toBe("true");
    expect(again.headers.get("content-type")).toBe(first.headers.get("content-type"));
    expect(again.headers.get("request-id")).not.toBe(first.headers.get("request-id"));
    expect(again.headers.get("x-ratelimit-remaining")).not.toBeNull();
  });

  test("a customer create retried with its key never answers slug_taken", async () => {
    const first = await post("/api/v1/customers", { name: "Retry", slug: "retry-me" }, "slug-retry");
    for (let i = 0; i < 3; i++) {
      const retry = await post("/api/v1/customers", { name: "Retry", slug: "retry-me" }, "slug-retry");
      expect(retry.status).toBe(201);
      expect(retry.body.id).toBe(first.body.id);
    }
    expectError(await t.call("POST", "/api/v1/customers", { body: { name: "Retry", slug: "retry-me" } }), 409, "slug_taken", "slug");
  });

  test("the same key with a different request is 409 idempotency_key_reused", async () => {
    await post("/api/v1/customers", { name: "One" }, "reuse-1");
    expectError(await post("/api/v1/customers", { name: "Two" }, "reuse-1"), 409, "idempotency_key_reused");
    expectError(await post(`/api/v1/customers/${customerId}/contacts`, { name: "One" }, "reuse-1"), 409, "idempotency_key_reused");
  });

  test("keys are scoped to the API key", async () => {
    const a = await post("/api/v1/customers", { name: "Scoped" }, "scoped-1");
    const b = await post("/api/v1/customers", { name: "Scoped" }, "scoped-1", t.keys.test);
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(a.body.id).not.toBe(b.body.id);
  });

  test("only successes are stored: after a 4xx the key can be used again", async () => {
    expectError(await post("/api/v1/onboardings", { customer_id: "cus_missing" }, "after-404"), 404, "customer_not_found");
    expectError(await post("/api/v1/onboardings", { customer_id: customerId, phase: "nope" }, "after-404"), 400, "invalid_enum_value");
    const ok = await post("/api/v1/onboardings", { customer_id: customerId }, "after-404");
    expect(ok.status).toBe(201);
  });

  test("the claim commits with the record: a failure leaves nothing of the key, a success a completed row", async () => {
    const ofKey = "api_key_id = ? AND key = ?";
    expectError(await post("/api/v1/onboardings", { customer_id: "cus_missing" }, "one-commit-1"), 404, "customer_not_found");
    expect(await t.count("idempotency_keys", ofKey, t.keyIds.live, "one-commit-1")).toBe(0); // rolled back with the change, no release
    const created = await post("/api/v1/onboardings", { customer_id: customerId, notes: "one commit" }, "one-commit-1");
    expect(created.status).toBe(201);
    expect(await t.count("idempotency_keys", `${ofKey} AND completed_at IS NOT NULL AND response_status = 201`, t.keyIds.live, "one-commit-1")).toBe(1);
    expect(await t.count("onboardings", "id = ?", created.body.id)).toBe(1);
    const [row] = await t.query<{ response_body: string }>(`SELECT response_body FROM idempotency_keys WHERE ${ofKey}`, t.keyIds.live, "one-commit-1");
    expect(row!.response_body).toBe(created.text);
  });

  test("a claim whose request is unfinished answers 409 in_use with Retry-After: 1, and replays once finished", async () => {
    const body = { name: "Slow" };
    const fingerprint = requestFingerprint("POST", "/api/v1/customers", body);
    expect((await run(t.idempotency.begin(t.keyIds.live, "slow-1", fingerprint))).kind).toBe("claimed");
    const busy = await post("/api/v1/customers", body, "slow-1");
    expectError(busy, 409, "idempotency_key_in_use");
    expect(busy.headers.get("retry-after")).toBe("1");
    const stored = await run(t.idempotency.execute(t.keyIds.live, "slow-1", 201, function* () {
      return { object: "customer", finished: true };
    }));
    const replay = await post("/api/v1/customers", body, "slow-1");
    expect(replay.text).toBe(stored);
  });

  test("a claim older than 60 s (a crashed request) is taken over", async () => {
    const body = { name: "Crashed" };
    await run(t.idempotency.begin(t.keyIds.live, "crash-1", requestFingerprint("POST", "/api/v1/customers", body)));
    clock.advanceSeconds(59);
    expectError(await post("/api/v1/customers", body, "crash-1"), 409, "idempotency_key_in_use");
    clock.advanceSeconds(2);
    const taken = await post("/api/v1/customers", body, "crash-1");
    expect(taken.status).toBe(201);
    expect((await post("/api/v1/customers", body, "crash-1")).body.id).toBe(taken.body.id);
  });

  test("a failure inside the handler stores nothing and leaves no record", async () => {
    const before = await count("customers");
    const claims = await count("idempotency_keys");
    const outbox = t.services.outbox;
    await expect(
      (async () =>
        run(
          t.idempotency.execute(t.keyIds.live, "boom-1", 201, function* () {
            yield* outbox.add("org_boom", "records", "activity.batch", { entries: [] }, 1);
            throw new Error("boom");
          }),
        ))(),
    ).rejects.toThrow("boom");
    expect(await count("customers")).toBe(before);
    expect(await count("idempotency_keys")).toBe(claims);
    expect(await t.count("outbox", "org_id = ?", "org_boom")).toBe(0);
  });

  test("stored responses expire after 24 h and are purged", async () => {
    await post("/api/v1/customers", { name: "Old" }, "expire-1");
    clock.advanceSeconds(23 * 3600);
    expectError(await post("/api/v1/customers", { name: "New" }, "expire-1"), 409, "idempotency_key_reused");
    clock.advanceSeconds(3600 + 1);
    expect((await post("/api/v1/customers", { name: "New" }, "expire-1")).status).toBe(201); // expired: a new key again
    clock.advanceSeconds(24 * 3600 + 1);
    expect(await t.idempotency.purgeExpired()).toBeGreaterThan(0);
    expect(await count("idempotency_keys")).toBe(0);
  });

  test("the header must be 1 to 255 characters", async () => {
    expectError(await post("/api/v1/customers", { name: "X" }, "k".repeat(256)), 400, "too_big", "Idempotency-Key");
    expect((await post("/api/v1/customers", { name: "X" }, "k".repeat(255))).status).toBe(201);
  });

  test("canonical JSON ignores key order at every depth", () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"y":2,"z":1}]},"b":1}');
  });
});

/**
 * SQLite: another connection holds the write lock, so a create waits for it with timers, its
 * key in flight in this process's memory only (nothing of it is in the database until its one
 * commit). Its own app, so the wait gives up after 1 s instead of 3.
 */
describe.skipIf(testEngine() !== "sqlite")("idempotency while SQLite's write lock is held elsewhere", () => {
  let u: TestApp;
  let lockHolder: Database;
  beforeAll(async () => {
    u = await createTestApp({ app: { databaseBusyTimeoutMs: 1000 } });
    u.db.$client.exec("PRAGMA busy_timeout = 0"); // as the API process runs: the holder is in this very thread
    lockHolder = new Database(u.dbPath);
  });
  afterAll(async () => {
    lockHolder.close();
    await u.close();
  });
  const postU = (body: unknown, key: string) => u.call("POST", "/api/v1/customers", { body, key: u.keys.live, headers: { "idempotency-key": key } });

  test("a second request with a key in flight here answers in_use at once; the first creates after the lock", async () => {
    lockHolder.exec("BEGIN IMMEDIATE");
    const requests = [postU({ name: "Waiting" }, "held-1"), postU({ name: "Waiting" }, "held-1")];
    try {
      const first = await Promise.race(requests);
      expectError(first, 409, "idempotency_key_in_use");
      expect(first.headers.get("retry-after")).toBe("1");
      expect(await u.count("idempotency_keys", "key = ?", "held-1")).toBe(0);
    } finally {
      lockHolder.exec("COMMIT");
    }
    const answers = await Promise.all(requests);
    expect(answers.map((r) => r.status).sort()).toEqual([201, 409]);
    const created = answers.find((r) => r.status === 201)!;
    const replay = await postU({ name: "Waiting" }, "held-1");
    expect(replay.headers.get("idempotent-replay")).toBe("true");
    expect(replay.body.id).toBe(created.body.id);
  });

  test("a 503 after the lock wait leaves nothing: the key is free again, with no release", async () => {
    const before = await u.count("customers");
    lockHolder.exec("BEGIN IMMEDIATE");
    try {
      expectError(await postU({ name: "Gave up" }, "gave-up-1"), 503, "service_unavailable");
      expectError(await postU({ name: "Gave up" }, "gave-up-1"), 503, "service_unavailable"); // not in_use: the memory claim ended with the request
    } finally {
      lockHolder.exec("COMMIT");
    }
    expect(await u.count("idempotency_keys", "key = ?", "gave-up-1")).toBe(0);
    const created = await postU({ name: "Gave up" }, "gave-up-1");
    expect(created.status).toBe(201);
    expect(await u.count("customers")).toBe(before + 1);
  });
});
