import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, expectError, type TestApp } from "../support/test-app.ts";

/**
 * Creates of onboardings made together (api/http/together.ts): requests that arrive at once
 * go in one transaction, and each keeps every promise of a create made alone. On both engines
 * (npm test runs this suite on SQLite and PostgreSQL).
 */
const ADMIN_TOKEN = "admin-token-for-the-batch-suite";
let t: TestApp;
let acme: string;
let globex: string;
beforeAll(async () => {
  t = await createTestApp({ adminToken: ADMIN_TOKEN });
  acme = (await t.call("POST", "/api/v1/customers", { body: { name: "Acme Corp" } })).body.id;
  globex = (await t.call("POST", "/api/v1/customers", { body: { name: "Globex Corp" }, key: t.keys.other })).body.id;
});
afterAll(() => t.close());

const create = (body: unknown, options: { key?: string; idempotencyKey?: string } = {}) =>
  t.call("POST", "/api/v1/onboardings", { body, key: options.key, headers: options.idempotencyKey ? { "idempotency-key": options.idempotencyKey } : {} });

/** The batch counters of /metrics: batches committed, and requests made together or alone. */
async function batchCounts(): Promise<{ batches: number; together: number; alone: number }> {
  const text = (await t.call("GET", "/metrics", { key: null, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text;
  const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? 0);
  return {
    batches: value(/^change_batches_total\{route="\/api\/v1\/onboardings"\} (\d+)/m),
    together: value(/^batched_changes_total\{route="\/api\/v1\/onboardings",made="together"\} (\d+)/m),
    alone: value(/^batched_changes_total\{route="\/api\/v1\/onboardings",made="alone"\} (\d+)/m),
  };
}

describe("onboardings created together", () => {
  test("30 creates at once from two workspaces: fewer transactions than creates, and each workspace's display ids, instants and feed positions in a row", async () => {
    const before = await batchCounts();
    const responses = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        i % 3 === 2 ? create({ customer_id: globex, notes: `g${i}` }, { key: t.keys.other, idempotencyKey: `g-${i}` }) : create({ customer_id: acme, notes: `a${i}` }, i % 2 ? { idempotencyKey: `a-${i}` } : {}),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(30).fill(201));
    const after = await batchCounts();
    expect(after.together - before.together).toBe(30);
    expect(after.batches - before.batches).toBeLessThan(30);

    for (const [customer, count] of [[acme, 20], [globex, 10]] as const) {
      const mine = responses.map((r) => r.body).filter((b) => b.customer_id === customer).sort((a, b) => a.display_id - b.display_id);
      expect(mine.length).toBe(count);
      // Display ids continue the workspace's sequence with no gap, and created_at rises with them.
      for (let i = 1; i < mine.length; i++) {
        expect(mine[i].display_id).toBe(mine[i - 1].display_id + 1);
        expect(Date.parse(mine[i].created_at) >= Date.parse(mine[i - 1].created_at)).toBe(true);
      }
    }
    // Within a workspace, never the same created_at twice (the list's order and cursor rely on it).
    const createdAt = await t.query<{ org_id: string; created_at: unknown }>("SELECT org_id, created_at FROM onboardings");
    expect(new Set(createdAt.map((r) => `${r.org_id} ${r.created_at}`)).size).toBe(createdAt.length);

    // One onboarding.created event per create, carrying its request, at the workspace's next positions without a gap.
    for (const key of [t.keys.live, t.keys.other]) {
      const feed = (await t.call("GET", "/api/v1/events?type=onboarding.created&limit=100", { key })).body.data as { data: { object: { id: string } }; request: { id: string } }[];
      const ids = new Set(responses.map((r) => r.body.id));
      expect(feed.filter((e) => ids.has(e.data.object.id)).length).toBe(key === t.keys.live ? 20 : 10);
    }
    const positions = await t.query<{ org_id: string; position: unknown }>("SELECT org_id, position FROM events ORDER BY org_id, position");
    const byOrg = new Map<string, number[]>();
    for (const row of positions) byOrg.set(row.org_id, [...(byOrg.get(row.org_id) ?? []), Number(row.position)]);
    for (const list of byOrg.values()) expect(list).toEqual(list.map((_, i) => i + 1));

    // Each request's activity entry, written with the change; each keyed response stored and replayed byte for byte.
    const entries = new Set((await t.query<{ request_id: string }>("SELECT request_id FROM activity_entries WHERE method = 'POST' AND status = 201")).map((r) => r.request_id));
    for (const r of responses) expect(entries.has(r.headers.get("request-id")!)).toBe(true);
    const replay = await create({ customer_id: acme, notes: "a1" }, { idempotencyKey: "a-1" });
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotent-replay")).toBe("true");
    expect(replay.text).toBe(responses[1]!.text);
  });

  test("in one batch, each request gets its own answer: a missing customer, another workspace's, a used key, a display id; the rest are created", async () => {
    const used = await create({ customer_id: acme, notes: "first" }, { idempotencyKey: "used-key" });
    const customer = (await t.call("GET", `/api/v1/customers/${acme}`)).body;
    const onboardingsBefore = await t.count("onboardings");
    const eventsBefore = await t.count("events");
    const before = await batchCounts();
    const [missing, foreign, replayed, reused, byDisplayId, ...fine] = await Promise.all([
      create({ customer_id: "cus_00000000000000000000000000" }, { idempotencyKey: "missing" }),
      create({ customer_id: globex }),
      create({ customer_id: acme, notes: "first" }, { idempotencyKey: "used-key" }),
      create({ customer_id: acme, notes: "another body" }, { idempotencyKey: "used-key-2" }).then(() => create({ customer_id: acme, notes: "a third" }, { idempotencyKey: "used-key-2" })),
      create({ customer_id: String(customer.display_id), notes: "by display id" }),
      ...Array.from({ length: 8 }, (_, i) => create({ customer_id: acme, notes: `fine ${i}` }, { idempotencyKey: `fine-${i}` })),
    ]);
    expectError(missing!, 404, "customer_not_found", "customer_id");
    expectError(foreign!, 404, "customer_not_found", "customer_id");
    expect(replayed!.status).toBe(201);
    expect(replayed!.text).toBe(used.text);
    expectError(reused!, 409, "idempotency_key_reused");
    expect(byDisplayId!.status).toBe(201);
    expect(byDisplayId!.body.customer_id).toBe(acme);
    expect(fine.map((r) => r.status)).toEqual(Array(8).fill(201));

    // Nothing of the failed requests was written; the rest wrote one onboarding and one event each.
    expect(await t.count("onboardings")).toBe(onboardingsBefore + 10);
    expect(await t.count("events")).toBe(eventsBefore + 10);
    expect(await t.count("idempotency_keys", "key = 'missing'")).toBe(0);
    const after = await batchCounts();
    expect(after.alone - before.alone).toBeGreaterThanOrEqual(3); // the missing, the foreign and the replay left their batch
    // The display ids stayed in a row: the batches the leavers rolled back gave theirs back.
    const ids = (await t.query<{ display_id: unknown }>("SELECT display_id FROM onboardings WHERE org_id = (SELECT org_id FROM customers WHERE id = $1) ORDER BY display_id", acme)).map((r) => Number(r.display_id));
    expect(ids).toEqual(ids.map((_, i) => i + 1));
  });

  test("a webhook endpoint gets the live creates of a batch and none of the test key's", async () => {
    const hook = await t.call("POST", "/api/v1/webhook_endpoints", { body: { url: "https://hooks.valid.example/in", enabled_events: ["onboarding.created"] } });
    expect(hook.status).toBe(201);
    const testCustomer = (await t.call("POST", "/api/v1/customers", { body: { name: "Test Mode Co" }, key: t.keys.test })).body.id;
    const deliveriesBefore = await t.count("outbox", "name = 'webhook.deliver'");
    const responses = await Promise.all([
      ...Array.from({ length: 6 }, () => create({ customer_id: acme })),
      ...Array.from({ length: 4 }, () => create({ customer_id: testCustomer }, { key: t.keys.test })),
    ]);
    expect(responses.map((r) => r.status)).toEqual(Array(10).fill(201));
    expect(responses.slice(6).every((r) => r.body.id.startsWith("onb_"))).toBe(true);
    expect(await t.count("outbox", "name = 'webhook.deliver'")).toBe(deliveriesBefore + 6);
    await t.call("DELETE", `/api/v1/webhook_endpoints/${hook.body.id}`);
  });
});
