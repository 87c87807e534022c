import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createActivityStore, pagesOf, type StoredActivityEntry } from "../../shared/db/activity.store.ts";
import { run } from "../../shared/db/flow.ts";
import type { ActivityEntry } from "../../shared/jobs/catalog.ts";
import { createTestApp, type TestApp } from "../support/test-app.ts";

/**
 * The activity store reads a workspace's entries from both places they are written (a change's
 * row, the pages of entries the API held in memory) as one list, newest first, on either engine
 * (npm test runs this on SQLite and PostgreSQL): each entry once, in order, page after page of
 * the list, whatever pages and rows the entries are spread over.
 */
let t: TestApp;
let store: ReturnType<typeof createActivityStore>;
beforeAll(async () => {
  t = await createTestApp();
  store = createActivityStore(t.database.sql);
});
afterAll(() => t.close());

const ORG = "org_activity_store";
let n = 0;
const entry = (at: number, keyId = "key_a"): ActivityEntry => ({
  request_id: `req_store_${String(n++).padStart(4, "0")}`,
  org_id: ORG,
  key_id: keyId,
  actor: keyId,
  method: "GET",
  route: "/api/v1/me",
  status: 200,
  address: null,
  duration_ms: 0.25,
  at,
});

/** Every entry of the workspace, walked `limit` at a time with the cursor, as the admin area walks it. */
async function walk(keyId: string | null, limit: number): Promise<StoredActivityEntry[]> {
  const all: StoredActivityEntry[] = [];
  let before: { at: number; requestId: string } | null = null;
  for (;;) {
    const page: StoredActivityEntry[] = await run(store.newest(ORG, keyId, before, limit));
    all.push(...page);
    if (page.length < limit) return all;
    const last: StoredActivityEntry = page[page.length - 1]!;
    before = { at: last.at, requestId: last.request_id };
  }
}

const newestFirst = (entries: ActivityEntry[]) =>
  [...entries].sort((a, b) => b.at - a.at || (a.request_id < b.request_id ? 1 : -1)).map((e) => e.request_id);

describe("activity entries, rows and pages read together", () => {
  const written: ActivityEntry[] = [];
  beforeAll(async () => {
    // Flushes whose times overlap (two API processes), entries of two keys, ties on `at` across
    // pages and rows, a page per flush, and changes' rows in between.
    const flushes: ActivityEntry[][] = [];
    for (let f = 0; f < 30; f++) {
      const flush: ActivityEntry[] = [];
      for (let i = 0; i < 1 + (f % 7); i++) flush.push(entry(1_000 + f * 10 + ((i * 3) % 15), i % 3 === 0 ? "key_b" : "key_a"));
      flushes.push(flush);
    }
    const rows = Array.from({ length: 25 }, (_, i) => entry(1_000 + i * 12, i % 2 === 0 ? "key_b" : "key_a"));
    // Another workspace's entries are never in the list.
    const elsewhere = pagesOf([{ ...entry(1_100), org_id: "org_elsewhere" }]);
    await run(
      t.database.transaction(function* () {
        for (const flush of flushes) yield* store.insertPages(pagesOf(flush));
        yield* store.insertMany(rows);
        yield* store.insertPages(elsewhere);
      }),
    );
    written.push(...flushes.flat(), ...rows);
  });

  test("newest first, each once, walked a few at a time across pages and rows", async () => {
    for (const limit of [1, 7, 50, 500]) expect((await walk(null, limit)).map((e) => e.request_id)).toEqual(newestFirst(written));
  });

  test("one key's entries only, in the same order", async () => {
    expect((await walk("key_b", 4)).map((e) => e.request_id)).toEqual(newestFirst(written.filter((e) => e.key_id === "key_b")));
  });

  test("an entry reads back as it was recorded, any text in it, with repeat_count 1 unless it stands for more calls", async () => {
    // Any text a key's name may hold comes back as it was: tabs, quotes, backslashes, COPY's markers, emoji.
    const refusals = { ...entry(5_000), actor: 'tab\there "quoted" back\\slash \\N é 🚀', status: 429, repeat_count: 17 };
    await run(t.database.transaction(() => store.insertPages(pagesOf([refusals]))));
    const [newest] = await run(store.newest(ORG, null, null, 1));
    expect(newest).toEqual(refusals);
    const [read] = await run(store.newest(ORG, null, { at: refusals.at, requestId: refusals.request_id }, 1));
    expect(read!.repeat_count).toBe(1);
  });

  test("a page holds each entry as an array of its fields, without the page's workspace; pages of objects (the first release of pages) still read", async () => {
    const [page] = pagesOf([entry(6_000), { ...entry(6_001), status: 429, repeat_count: 3 }]);
    expect(JSON.parse(page!.entries)).toEqual([
      [expect.any(String), "key_a", "key_a", "GET", "/api/v1/me", 200, null, 0.25, 6_000],
      [expect.any(String), "key_a", "key_a", "GET", "/api/v1/me", 429, null, 0.25, 6_001, 3],
    ]);
    const older: ActivityEntry[] = [entry(7_000, "key_b"), { ...entry(7_001, "key_b"), repeat_count: 2 }];
    await run(t.database.transaction(() => store.insertPages([{ id: "act_older_form", org_id: ORG, first_at: 7_000, last_at: 7_001, entry_count: 2, entries: JSON.stringify(older) }])));
    expect(await run(store.newest(ORG, "key_b", null, 2))).toEqual([older[1] as StoredActivityEntry, { ...older[0]!, repeat_count: 1 }]);
  });
});
