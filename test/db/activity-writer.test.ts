import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database as Sqlite } from "bun:sqlite";
import { dirname } from "node:path";
import { createActivityRecorder } from "../../api/activity/activity-recorder.ts";
import { startActivityWriter } from "../../api/activity/activity-writer.ts";
import { createKeyUsage } from "../../api/auth/key-usage.ts";
import { createApiStores } from "../../api/stores.ts";
import { systemClock } from "../../shared/clock.ts";
import { pagesOf, type ActivityPage } from "../../shared/db/activity.store.ts";
import { sqliteDatabase } from "../../shared/db/database.ts";
import { run } from "../../shared/db/flow.ts";
import type { ActivityEntry } from "../../shared/jobs/catalog.ts";
import { newId } from "../../shared/ids.ts";
import { createLogger } from "../../shared/logger.ts";
import { createApiKey, createWorkspace } from "../../shared/workspaces.ts";
import { freshDatabase } from "../support/test-app.ts";

/**
 * Read calls' activity entries and keys' usage written by a thread with a connection of its own
 * to the SQLite file (api/activity/activity-writer.ts), on a real file with the real thread:
 * every entry and every count is written once, a batch the database refuses is kept and written
 * later, and a thread that fails hands the writing back to the API's connection.
 */
const fresh = freshDatabase();
const database = sqliteDatabase(fresh.db);
const stores = createApiStores(database, () => {});
const other = new Sqlite(fresh.path, { strict: true });
afterAll(() => {
  other.close();
  database.close();
  fresh.cleanup();
});

const logger = createLogger("silent");
const entry = (actor: string): ActivityEntry => ({
  request_id: newId("req"),
  org_id: "org_writer",
  key_id: "key_writer",
  actor,
  method: "GET",
  route: "/api/v1/me",
  status: 200,
  address: null,
  duration_ms: 0.1,
  at: Date.now() * 1000,
});
/** Entries stored by `actor`: rows and entries of pages alike (an entry of a page is an array, its actor third). */
const rows = (actor: string) =>
  (
    other
      .query(
        `SELECT (SELECT count(*) FROM activity_entries WHERE actor = ?1)
              + (SELECT count(*) FROM activity_pages p, json_each(p.entries) e WHERE json_extract(e.value, '$[2]') = ?1) AS n`,
      )
      .get(actor) as { n: number }
  ).n;
const recorder = (writer: ReturnType<typeof startActivityWriter>) =>
  createActivityRecorder({ writer, transaction: database.transaction, store: stores.activity, writes: database.writes, logger, nowMicros: () => Date.now() * 1000, flushMs: 5 });

/** The writer, watched: how many slices it was handed, and the most that were out at once. */
function counted(writer: NonNullable<ReturnType<typeof startActivityWriter>>) {
  const seen = { slices: 0, out: 0, mostOut: 0 };
  return {
    seen,
    writer: {
      ...writer,
      write(pages: readonly ActivityPage[]) {
        seen.slices++;
        seen.mostOut = Math.max(seen.mostOut, ++seen.out);
        return writer.write(pages).finally(() => seen.out--);
      },
    },
  };
}

describe("the activity writer thread", () => {
  test("entries go through the thread in slices of maxBatch, one out at a time, and all are written", async () => {
    const writer = startActivityWriter(fresh.path, { logger })!;
    try {
      const { seen, writer: watched } = counted(writer);
      const activity = createActivityRecorder({ writer: watched, transaction: database.transaction, store: stores.activity, writes: database.writes, logger, nowMicros: () => Date.now() * 1000, maxBatch: 100 });
      for (let i = 0; i < 1234; i++) activity.record(entry("sliced"));
      await activity.drain();
      expect(rows("sliced")).toBe(1234);
      expect(seen).toEqual({ slices: 13, out: 0, mostOut: 1 });
      expect(writer.alive()).toBe(true);
    } finally {
      await writer.stop();
    }
  });

  test("while another connection holds the write lock, slices are refused and kept, and drain writes them once it is free", async () => {
    const writer = startActivityWriter(fresh.path, { logger, busyTimeoutMs: 20 })!;
    try {
      const { seen, writer: watched } = counted(writer);
      const activity = recorder(watched);
      await writer.write([]); // the thread has opened the file (opening waits for a lock longer)
      other.exec("BEGIN IMMEDIATE");
      for (let i = 0; i < 50; i++) activity.record(entry("waited"));
      await Bun.sleep(100); // flushes meet the lock: each slice refused after the thread's 20 ms, kept
      expect(seen.slices).toBeGreaterThan(1);
      expect(rows("waited")).toBe(0);
      setTimeout(() => other.exec("COMMIT"), 50);
      await activity.drain(); // tries again with timers until the lock is gone
      expect(rows("waited")).toBe(50);
      expect(seen.mostOut).toBe(1);
    } finally {
      if (other.inTransaction) other.exec("COMMIT");
      await writer.stop();
    }
  });

  test("what waits past maxHeld entries while the database refuses is dropped, oldest first, a page at a time; the rest is written once it is free", async () => {
    const writer = startActivityWriter(fresh.path, { logger, busyTimeoutMs: 20 })!;
    try {
      const activity = createActivityRecorder({ writer, transaction: database.transaction, store: stores.activity, writes: database.writes, logger, nowMicros: () => Date.now() * 1000, flushMs: 5, maxBatch: 50, maxHeld: 120 });
      await writer.write([]);
      other.exec("BEGIN IMMEDIATE");
      for (let i = 0; i < 200; i++) activity.record(entry("bounded"));
      await Bun.sleep(100);
      setTimeout(() => other.exec("COMMIT"), 20);
      await activity.drain();
      // At most maxHeld kept; at most a page more than the excess dropped.
      expect(rows("bounded")).toBeLessThanOrEqual(120);
      expect(rows("bounded")).toBeGreaterThanOrEqual(120 - 50);
    } finally {
      if (other.inTransaction) other.exec("COMMIT");
      await writer.stop();
    }
  });

  test("a thread that fails refuses what it was handed and hands the writing back to the API's connection; nothing is lost", async () => {
    // A directory is no database: the thread fails as it opens it.
    const writer = startActivityWriter(dirname(fresh.path), { logger })!;
    await expect(writer.write(pagesOf([entry("handed")]))).rejects.toThrow(/gone/);
    expect(writer.alive()).toBe(false);
    const activity = recorder(writer);
    for (let i = 0; i < 20; i++) activity.record(entry("fallback"));
    await activity.drain();
    expect(rows("fallback")).toBe(20);
    await writer.stop();
  });

  test("a database in memory has no thread: no other connection can open it", () => {
    expect(startActivityWriter(":memory:", { logger })).toBeNull();
  });
});

describe("keys' usage through the writer thread", () => {
  const keys: string[] = [];
  beforeAll(async () => {
    await run(createWorkspace(database, systemClock, { slug: "usage-thread", name: "Usage thread" }));
    for (let i = 0; i < 5; i++) keys.push((await run(createApiKey(database, systemClock, { workspaceSlug: "usage-thread", name: `key ${i}`, mode: "live", tier: "paid" }))).row.id);
  });
  const usageOf = (keyId: string) =>
    other.query("SELECT request_count AS n, last_used_at AS at, last_used_ip AS ip FROM api_keys WHERE id = ?").get(keyId) as { n: number; at: number | null; ip: string | null };
  /** The writer, watched: how many slices of usage it was handed. */
  function watched(writer: NonNullable<ReturnType<typeof startActivityWriter>>) {
    const seen = { slices: 0 };
    return { seen, writer: { alive: writer.alive, addUsage: (batch: Parameters<typeof writer.addUsage>[0]) => (seen.slices++, writer.addUsage(batch)) } };
  }

  test("the sweep hands its slices to the thread, which adds the counts, the last use and its address", async () => {
    const writer = startActivityWriter(fresh.path, { logger })!;
    try {
      const { seen, writer: handed } = watched(writer);
      const usage = createKeyUsage(stores.apiKeys, systemClock, { sliceKeys: 2, writer: handed });
      for (const [i, keyId] of keys.entries()) for (let n = 0; n <= i; n++) usage.record(keyId, `10.0.0.${n}`);
      await usage.sweep();
      expect(seen.slices).toBe(3); // five keys, two a slice
      for (const [i, keyId] of keys.entries()) expect(usageOf(keyId)).toMatchObject({ n: i + 1, ip: `10.0.0.${i}` });
      expect(usageOf(keys[0]!).at).toBeGreaterThan(0);
    } finally {
      await writer.stop();
    }
  });

  test("a slice refused while another connection holds the write lock is kept, and written once by the next sweep", async () => {
    const writer = startActivityWriter(fresh.path, { logger, busyTimeoutMs: 20 })!;
    try {
      await writer.write([]); // the thread has opened the file
      const usage = createKeyUsage(stores.apiKeys, systemClock, { writer });
      const before = usageOf(keys[0]!).n;
      for (let i = 0; i < 7; i++) usage.record(keys[0]!, "10.0.0.7");
      other.exec("BEGIN IMMEDIATE");
      try {
        const sweeping = usage.sweep(); // refused after the thread's 20 ms: the counts stay gathered
        usage.record(keys[0]!, "10.0.0.8"); // a later use, counted while the slice is out
        await sweeping;
        expect(usageOf(keys[0]!).n).toBe(before);
      } finally {
        other.exec("COMMIT");
      }
      await usage.sweep();
      // Both counted once, and the address is the later use's, not the refused slice's.
      expect(usageOf(keys[0]!)).toMatchObject({ n: before + 8, ip: "10.0.0.8" });
      await usage.sweep(); // nothing left: nothing added twice
      expect(usageOf(keys[0]!).n).toBe(before + 8);
    } finally {
      await writer.stop();
    }
  });

  test("a slice the database refuses for another reason than busy or full is kept and logged, and written once it no longer refuses", async () => {
    const lines: string[] = [];
    const writer = startActivityWriter(fresh.path, { logger })!;
    try {
      await writer.write([]);
      other.exec(`CREATE TRIGGER refuse_usage BEFORE UPDATE OF request_count ON api_keys WHEN NEW.id = '${keys[2]}' BEGIN SELECT RAISE(ABORT, 'refused for the test'); END`);
      const usage = createKeyUsage(stores.apiKeys, systemClock, { writer, logger: createLogger("error", {}, (line) => lines.push(line)) });
      const before = usageOf(keys[2]!).n;
      usage.record(keys[2]!, null);
      try {
        await usage.sweep();
        expect(usageOf(keys[2]!).n).toBe(before);
        expect(lines.join("\n")).toContain("key usage not written: kept for the next write");
      } finally {
        other.exec("DROP TRIGGER refuse_usage");
      }
      await usage.sweep();
      expect(usageOf(keys[2]!).n).toBe(before + 1);
    } finally {
      await writer.stop();
    }
  });

  test("a thread that fails refuses the slice it was handed; the counts are kept, and the next sweep writes them on the API's connection", async () => {
    // A directory is no database: the thread fails as it opens it, after the sweep handed it a slice.
    const lines: string[] = [];
    const writer = startActivityWriter(dirname(fresh.path), { logger })!;
    const usage = createKeyUsage(stores.apiKeys, systemClock, { writer, logger: createLogger("error", {}, (line) => lines.push(line)) });
    const before = usageOf(keys[1]!).n;
    for (let i = 0; i < 4; i++) usage.record(keys[1]!, null);
    expect(writer.alive()).toBe(true);
    await usage.sweep(); // handed to the thread, refused as it fails: kept
    expect(writer.alive()).toBe(false);
    expect(usageOf(keys[1]!).n).toBe(before);
    await usage.sweep();
    expect(usageOf(keys[1]!).n).toBe(before + 4);
    expect(lines).toEqual([]); // the thread's failure is the writer's to log, not each slice's
    await writer.stop();
  });

  test("a writer stopped with a sweep's slice out: the slice is written or given back, and the shutdown's flush writes the rest", async () => {
    const writer = startActivityWriter(fresh.path, { logger })!;
    await writer.write([]);
    const usage = createKeyUsage(stores.apiKeys, systemClock, { sliceKeys: 1, writer });
    const before = keys.map((keyId) => usageOf(keyId).n);
    for (const keyId of keys) for (let i = 0; i < 3; i++) usage.record(keyId, null);
    const sweeping = usage.sweep();
    await writer.stop();
    await sweeping;
    await usage.flush();
    expect(keys.map((keyId) => usageOf(keyId).n)).toEqual(before.map((n) => n + 3));
  });
});
