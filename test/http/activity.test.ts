import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock, systemClock } from "../../shared/clock.ts";
import { run } from "../../shared/db/flow.ts";
import { newId } from "../../shared/ids.ts";
import type { ActivityEntry } from "../../shared/jobs/catalog.ts";
import { createApiKey } from "../../shared/workspaces.ts";
import { createTestApp, type TestApp } from "../support/test-app.ts";

/**
 * Where a call's activity entry is written, once and straight into its table: with the change,
 * in the change's own transaction, when the call changed data; by the next flush (at most 50 ms
 * later) otherwise. A key's refusals within one second are one entry with `repeat_count`. On
 * SQLite the suite's app writes the flushes on a thread of their own, as the API process does.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ app: { activityThread: true } });
});
afterAll(() => t.close());

const entry = async (requestId: string) => (await t.query("SELECT method, status FROM activity_entries WHERE request_id = ?", requestId))[0] ?? null;

describe("activity entries", () => {
  test("a change's entry is committed with it; a read's, a refusal's and a no-op PATCH's are written by the flush, never through the outbox", async () => {
    const created = await t.call("POST", "/api/v1/customers", { body: { name: "Entries" } });
    expect(await entry(created.headers.get("request-id")!)).toEqual({ method: "POST", status: 201 });

    const changed = await t.call("PATCH", `/api/v1/customers/${created.body.id}`, { body: { name: "Entries renamed" } });
    expect(await entry(changed.headers.get("request-id")!)).toEqual({ method: "PATCH", status: 200 });

    const calls = [
      await t.call("PATCH", `/api/v1/customers/${created.body.id}`, { body: { name: "Entries renamed" } }), // changes nothing
      await t.call("GET", `/api/v1/customers/${created.body.id}`),
      await t.call("POST", "/api/v1/customers", { body: { name: "" } }), // refused
    ];
    expect(calls.map((c) => c.status)).toEqual([200, 200, 400]);
    const ids = calls.map((c) => c.headers.get("request-id")!);
    expect(await Promise.all(ids.map(entry))).toEqual([null, null, null]); // not before the flush
    await t.activity.drain();
    expect(await Promise.all(ids.map(entry))).toEqual([
      { method: "PATCH", status: 200 },
      { method: "GET", status: 200 },
      { method: "POST", status: 400 },
    ]);
    // Written once: no activity payload waits in the outbox to be copied.
    expect(await t.count("outbox", "name = 'activity.batch'")).toBe(0);
  });

  test("an entry that reaches a flush after it was stored (a flush sent again: its answer was lost) is stored once, and the flush's other entries with it", async () => {
    const read = await t.call("GET", "/api/v1/me");
    await t.activity.drain();
    const requestId = read.headers.get("request-id")!;
    const [stored] = await t.query<ActivityEntry>(
      "SELECT request_id, org_id, key_id, actor, method, route, status, address, duration_ms, at FROM activity_entries WHERE request_id = ?",
      requestId,
    );
    const again: ActivityEntry = { ...stored!, status: Number(stored!.status), duration_ms: Number(stored!.duration_ms), at: Number(stored!.at) };
    const fresh: ActivityEntry = { ...again, request_id: newId("req") };
    // On PostgreSQL the first flush's COPY is refused on the stored id and rolls back; the
    // entries are kept and the next flush writes them with INSERT … ON CONFLICT DO NOTHING.
    t.activity.record(again);
    t.activity.record(fresh);
    await t.activity.drain();
    expect(await t.count("activity_entries", "request_id = ?", requestId)).toBe(1);
    expect(await t.count("activity_entries", "request_id = ?", fresh.request_id)).toBe(1);
  });

  test("a key's 429s within one second are one entry carrying how many there were", async () => {
    const { key } = await run(createApiKey(t.database, systemClock, { workspaceSlug: "acme", name: "hammer", mode: "live", tier: "default" }));
    const statuses: number[] = [];
    for (let i = 0; i < 90; i++) statuses.push((await t.call("GET", "/api/v1/me", { key })).status);
    const refused = statuses.filter((s) => s === 429).length;
    expect(refused).toBe(30);
    await t.activity.drain();
    const rows = await t.query<{ n: number | string; calls: number | string }>(
      "SELECT count(*) AS n, sum(repeat_count) AS calls FROM activity_entries WHERE actor = 'hammer' AND status = 429",
    );
    // Every refusal is counted; the rows are one per second the refusals spanned (one or two here).
    expect(Number(rows[0]!.calls)).toBe(30);
    expect(Number(rows[0]!.n)).toBeLessThanOrEqual(2);
    const served = await t.count("activity_entries", "actor = 'hammer' AND status = 200");
    expect(served).toBe(60);
  });

  test("a key refused for a whole minute leaves about one row a second, every refusal counted", async () => {
    const clock = new ManualClock();
    const app = await createTestApp({ clock });
    try {
      const { key } = await run(createApiKey(app.database, systemClock, { workspaceSlug: "acme", name: "flood", mode: "live", tier: "default" }));
      let refused = 0;
      for (let i = 0; i < 3000; i++) {
        if ((await app.call("GET", "/api/v1/me", { key })).status === 429) refused++;
        clock.advanceSeconds(0.02); // 3,000 calls over 60 seconds of the service's clock
      }
      await app.activity.drain();
      const [row] = await app.query<{ n: number | string; calls: number | string }>(
        "SELECT count(*) AS n, sum(repeat_count) AS calls FROM activity_entries WHERE actor = 'flood' AND status = 429",
      );
      expect(refused).toBeGreaterThan(2000);
      expect(Number(row!.calls)).toBe(refused);
      expect(Number(row!.n)).toBeLessThanOrEqual(61);
    } finally {
      await app.close();
    }
  });
});
