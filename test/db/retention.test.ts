import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { lifetimesFrom, pruneExpired, retentionStatus } from "../../shared/retention.ts";
import { createTestApp, type TestApp } from "../support/test-app.ts";

/**
 * Every table that grows with traffic keeps its rows for its lifetime, on either engine (npm
 * test runs this on SQLite and PostgreSQL). A fake "now" drives the lifetimes: no test waits
 * for days. A row whose effect is unfinished is never pruned, however old.
 */
let t: TestApp;
let org: string;
beforeAll(async () => {
  t = await createTestApp();
  org = (await t.query<{ id: string }>("SELECT id FROM organizations WHERE slug = 'acme'"))[0]!.id;
});
afterAll(() => t.close());

const DAY = 86_400_000_000;
const NOW = 1_900_000_000_000_000; // the fake clock: 2030
const lifetimes = lifetimesFrom({}); // 90 d activity and deliveries, 24 h outbox, 365 d audit, 24 h idempotency

async function seed(prefix: string, at: number) {
  await t.query(
    "INSERT INTO activity_entries (request_id, org_id, key_id, actor, method, route, status, address, duration_ms, at) VALUES (?, ?, 'key_r', 'r', 'GET', '/x', 200, NULL, 1, ?)",
    `req_${prefix}`, org, at,
  );
  const entry = { request_id: `req_${prefix}_paged`, org_id: org, key_id: "key_r", actor: "r", method: "GET", route: "/x", status: 200, address: null, duration_ms: 1, at };
  await t.query("INSERT INTO activity_pages (id, org_id, first_at, last_at, entry_count, entries) VALUES (?, ?, ?, ?, 1, ?)", `act_${prefix}`, org, at, at, JSON.stringify([entry]));
  // Finished (relayed, outcome recorded) and unfinished (relayed, no outcome).
  await t.query("INSERT INTO outbox (org_id, queue, name, payload, created_at, relayed_at, completed_at) VALUES (?, 'records', 'reminders.scan', ?, ?, ?, ?)", org, `{"${prefix}":"done"}`, at, at, at);
  await t.query("INSERT INTO outbox (org_id, queue, name, payload, created_at, relayed_at, completed_at) VALUES (?, 'records', 'reminders.scan', ?, ?, ?, NULL)", org, `{"${prefix}":"open"}`, at, at);
  for (const status of ["sent", "sending"]) {
    await t.query(
      "INSERT INTO deliveries (id, source, org_id, onboarding_id, kind, target, status, detail, attempts, created_at, updated_at) VALUES (?, ?, ?, 'onb_r', 'launch.slack_dm', NULL, ?, NULL, 1, ?, ?)",
      `dlv_${prefix}_${status}`, `src_${prefix}_${status}`, org, status, at, at,
    );
  }
  await t.query(
    "INSERT INTO webhook_attempts (id, org_id, endpoint_id, event_id, attempt, status_code, duration_ms, error, response_excerpt, created_at, next_attempt_at) VALUES (?, ?, 'we_r', 'evt_r', 1, 200, 1, NULL, NULL, ?, NULL)",
    `wha_${prefix}`,
    org,
    at,
  );
  await t.query("INSERT INTO audit_log (org_id, actor_user_id, actor, action, target, detail, address, at) VALUES (?, NULL, 'ops', ?, NULL, NULL, NULL, ?)", org, `test.${prefix}`, at);
  await t.query("INSERT INTO idempotency_keys (api_key_id, key, fingerprint, claimed_at, created_at) VALUES ('key_r', ?, 'fp', ?, ?)", `idem_${prefix}`, at, at);
  await seedEvent("org_seeded", `evt_${prefix}`, at);
}

/** An event at its workspace's next position, as a change appends it (its positions row moved too). */
async function seedEvent(orgId: string, id: string, at: number) {
  await t.query("INSERT INTO event_positions (org_id, last_position) VALUES (?, 1) ON CONFLICT (org_id) DO UPDATE SET last_position = event_positions.last_position + 1", orgId);
  const [{ position }] = (await t.query<{ position: unknown }>("SELECT last_position AS position FROM event_positions WHERE org_id = ?", orgId)) as [{ position: unknown }];
  await t.query(
    "INSERT INTO events (org_id, position, id, type, object_id, livemode, actor_type, actor_name, request_id, idempotency_key, data, created_at) VALUES (?, ?, ?, 'customer.created', 'cus_r', TRUE, 'api_key', 'k', NULL, NULL, '{}', ?)",
    orgId, Number(position), id, at,
  );
}

describe("retention", () => {
  test("each table loses what its lifetime has passed, in slices, and keeps what is young or unfinished", async () => {
    await seed("ancient", NOW - 400 * DAY); // past every lifetime
    await seed("month", NOW - 30 * DAY); // past the outbox's and idempotency's only
    await seed("fresh", NOW - 1000); // within all
    const pruned = await pruneExpired(t.database, lifetimes, NOW, { sliceRows: 1 });
    expect(pruned).toEqual({ activity_entries: 1, activity_pages: 1, events: 1, webhook_attempts: 1, deliveries: 1, outbox: 2, audit_log: 1, idempotency_keys: 2 });
    // Events keep EVENTS_RETENTION (30 days): the month-old one is exactly at the edge, kept.
    expect((await t.query<{ id: string }>("SELECT id FROM events ORDER BY position")).map((r) => r.id)).toEqual(["evt_month", "evt_fresh"]);

    expect((await t.query<{ request_id: string }>("SELECT request_id FROM activity_entries WHERE request_id LIKE 'req_%' ORDER BY at")).map((r) => r.request_id)).toEqual([
      "req_month",
      "req_fresh",
    ]);
    // A page goes whole once its newest entry is past the window.
    expect((await t.query<{ id: string }>("SELECT id FROM activity_pages ORDER BY last_at")).map((r) => r.id)).toEqual(["act_month", "act_fresh"]);
    // Outbox rows without an outcome stay, however old; finished ones go after 24 h.
    expect((await t.query<{ payload: string }>("SELECT payload FROM outbox WHERE queue = 'records' AND name = 'reminders.scan' ORDER BY created_at, payload")).map((r) => r.payload)).toEqual([
      '{"ancient":"open"}',
      '{"month":"open"}',
      '{"fresh":"done"}',
      '{"fresh":"open"}',
    ]);
    // A delivery still sending is unfinished: never pruned.
    expect((await t.query<{ id: string }>("SELECT id FROM deliveries ORDER BY updated_at, id")).map((r) => r.id)).toEqual([
      "dlv_ancient_sending",
      "dlv_month_sending",
      "dlv_month_sent",
      "dlv_fresh_sending",
      "dlv_fresh_sent",
    ]);
    expect(await t.count("audit_log", "action LIKE 'test.%'")).toBe(2);
    expect((await t.query<{ key: string }>("SELECT key FROM idempotency_keys WHERE api_key_id = 'key_r'")).map((r) => r.key)).toEqual(["idem_fresh"]);

    // A second run finds nothing more.
    expect(Object.values(await pruneExpired(t.database, lifetimes, NOW)).every((n) => n === 0)).toBe(true);
  });

  test("the feed loses a prefix of each workspace's positions, never a position in the middle", async () => {
    // Positions are commit order; created_at is the change's clock. A change that committed late
    // sits after a younger event: it stays until the younger one goes, so a follower never reads
    // past a hole. Two workspaces, one with nothing expired; slices of 2 across them.
    const old = NOW - 40 * DAY;
    const young = NOW - DAY;
    for (const [id, at] of [["evt_p1", old], ["evt_p2", old], ["evt_p3", old], ["evt_p4", young], ["evt_p5_late", old], ["evt_p6", young]] as const) await seedEvent("org_prefix", id, at);
    for (const id of ["evt_q1", "evt_q2"]) await seedEvent("org_young", id, young);
    const pruned = await pruneExpired(t.database, lifetimes, NOW, { sliceRows: 2 });
    expect(pruned.events).toBe(3);
    expect((await t.query<{ id: string }>("SELECT id FROM events WHERE org_id = 'org_prefix' ORDER BY position")).map((r) => r.id)).toEqual(["evt_p4", "evt_p5_late", "evt_p6"]);
    expect(await t.count("events", "org_id = 'org_young'")).toBe(2);
    // Once the younger event's time has passed, the late one goes with it.
    await pruneExpired(t.database, lifetimes, NOW + 30 * DAY, { sliceRows: 2 });
    expect(await t.count("events", "org_id IN ('org_prefix', 'org_young')")).toBe(0);
  });

  test("pruning beside concurrent writes, with every lifetime passed, loses none of their unfinished side effects", async () => {
    await seed("old-under-load", NOW - 400 * DAY);
    const customer = await t.call("POST", "/api/v1/customers", { body: { name: "Under load" } });
    const onboarding = await t.call("POST", "/api/v1/onboardings", { body: { customer_id: customer.body.id } });
    // Each entry into launch (a live key) queues two outbox rows, its launch automations.
    const phases = ["launch", "review"] as const;
    const writes = (async () => {
      for (let i = 0; i < 20; i++) {
        const r = await t.call("PATCH", `/api/v1/onboardings/${onboarding.body.id}`, { body: { phase: phases[i % 2] } });
        expect(r.status).toBe(200);
      }
    })();
    // Far in the future, with the outbox's lifetime at 1 µs: every finished row is expired.
    const pruning = pruneExpired(t.database, { ...lifetimes, outbox: 1 }, NOW + 1000 * DAY, { sliceRows: 1 });
    await Promise.all([writes, pruning]);
    // No worker runs here: the ten launches' outbox rows are unfinished, and all are still there.
    expect(await t.count("outbox", "payload LIKE ? AND completed_at IS NULL", `%${onboarding.body.id}%`)).toBe(20);
  });

  test("status reports rows, the oldest row and bytes on disk per table", async () => {
    const status = await retentionStatus(t.database, lifetimes);
    expect(status.map((s) => s.table)).toEqual(["activity_entries", "activity_pages", "events", "webhook_attempts", "deliveries", "outbox", "audit_log", "idempotency_keys"]);
    // The unfinished outbox rows the tests above left: counted, and the oldest one's time.
    const outbox = status.find((s) => s.table === "outbox")!;
    expect(outbox.rows).toBe(await t.count("outbox"));
    expect(outbox.oldest).toBe(Number((await t.query<{ at: unknown }>("SELECT min(created_at) AS at FROM outbox"))[0]!.at));
    expect(outbox.bytes).toBeGreaterThan(0);
    expect(outbox.lifetime_micros).toBe(24 * 3600 * 1_000_000);
    expect(status.find((s) => s.table === "activity_entries")!.lifetime_micros).toBe(90 * DAY);
  });
});
