import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock, systemClock } from "../../shared/clock.ts";
import { run } from "../../shared/db/flow.ts";
import { newId } from "../../shared/ids.ts";
import type { ActivityEntry } from "../../shared/jobs/catalog.ts";
import { createApiKey } from "../../shared/workspaces.ts";
import { createActivityStore, pagesOf } from "../../shared/db/activity.store.ts";
import { storedActivity } from "../support/activity.ts";
import { createTestApp, type TestApp } from "../support/test-app.ts";

/**
 * Where a call's activity entry is written, once: with the change, in the change's own
 * transaction (a row), when the call changed data; by the next flush (at most 50 ms later, in a
 * page of the workspace's entries) otherwise. A key's refusals within one second are one entry
 * with `repeat_count`. On SQLite the suite's app writes the flushes on a thread of their own, as
 * the API process does.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ app: { activityThread: true } });
});
afterAll(() => t.close());

const entry = async (requestId: string) => {
  const [found] = await storedActivity(t, (e) => e.request_id === requestId);
  return found ? { method: found.method, status: found.status } : null;
};
const rowOf = async (requestId: string) => (await t.query("SELECT method, status FROM activity_entries WHERE request_id = ?", requestId))[0] ?? null;

describe("activity entries", () => {
  test("a change's entry is committed with it; a read's, a refusal's and a no-op PATCH's are written by the flush, never through the outbox", async () => {
    // A change's entry is a row of its own, there when the response is.
    const created = await t.call("POST", "/api/v1/customers", { body: { name: "Entries" } });
    expect(await rowOf(created.headers.get("request-id")!)).toEqual({ method: "POST", status: 201 });

    const changed = await t.call("PATCH", `/api/v1/customers/${created.body.id}`, { body: { name: "Entries renamed" } });
    expect(await rowOf(changed.headers.get("request-id")!)).toEqual({ method: "PATCH", status: 200 });

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
    // Written once, in pages: no row of their own, and no activity payload waits in the outbox to be copied.
    expect(await Promise.all(ids.map(rowOf))).toEqual([null, null, null]);
    expect(await t.count("outbox", "name = 'activity.batch'")).toBe(0);
  });

  test("a page written again (the answer to its first write was lost) is stored once, with every entry in it", async () => {
    const read = await t.call("GET", "/api/v1/me");
    await t.activity.drain();
    const [stored] = await storedActivity(t, (e) => e.request_id === read.headers.get("request-id"));
    const { repeat_count: _, ...first } = stored!;
    const entries: ActivityEntry[] = [
      { ...first, request_id: newId("req") },
      { ...first, request_id: newId("req") },
    ];
    const pages = pagesOf(entries);
    const store = createActivityStore(t.database.sql);
    await run(t.database.transaction(() => store.insertPages(pages)));
    await run(t.database.transaction(() => store.insertPages(pages)));
    expect(await t.count("activity_pages", "id = ?", pages[0]!.id)).toBe(1);
    for (const { request_id } of entries) expect((await storedActivity(t, (e) => e.request_id === request_id)).length).toBe(1);
  });

  test("a key's 429s within one second are one entry carrying how many there were", async () => {
    const { key } = await run(createApiKey(t.database, systemClock, { workspaceSlug: "acme", name: "hammer", mode: "live", tier: "default" }));
    const statuses: number[] = [];
    for (let i = 0; i < 90; i++) statuses.push((await t.call("GET", "/api/v1/me", { key })).status);
    const refused = statuses.filter((s) => s === 429).length;
    expect(refused).toBe(30);
    await t.activity.drain();
    const refusals = await storedActivity(t, (e) => e.actor === "hammer" && e.status === 429);
    // Every refusal is counted; the entries are one per second the refusals spanned (one or two here).
    expect(refusals.reduce((sum, e) => sum + e.repeat_count, 0)).toBe(30);
    expect(refusals.length).toBeLessThanOrEqual(2);
    expect((await storedActivity(t, (e) => e.actor === "hammer" && e.status === 200)).length).toBe(60);
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
      const refusals = await storedActivity(app, (e) => e.actor === "flood" && e.status === 429);
      expect(refused).toBeGreaterThan(2000);
      expect(refusals.reduce((sum, e) => sum + e.repeat_count, 0)).toBe(refused);
      expect(refusals.length).toBeLessThanOrEqual(61);
    } finally {
      await app.close();
    }
  });
});
