import { afterAll, describe, expect, test } from "bun:test";
import { Database as Sqlite } from "bun:sqlite";
import { dirname } from "node:path";
import { createActivityRecorder } from "../../api/activity/activity-recorder.ts";
import { startActivityWriter } from "../../api/activity/activity-writer.ts";
import { createApiStores } from "../../api/stores.ts";
import { sqliteDatabase } from "../../shared/db/database.ts";
import type { ActivityEntry } from "../../shared/jobs/catalog.ts";
import { newId } from "../../shared/ids.ts";
import { createLogger } from "../../shared/logger.ts";
import { freshDatabase } from "../support/test-app.ts";

/**
 * Read calls' activity entries written by a thread with a connection of its own to the SQLite
 * file (api/activity/activity-writer.ts), on a real file with the real thread: every entry is
 * written once, a batch the database refuses is kept and written later, and a thread that fails
 * hands the writing back to the API's connection.
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
const rows = (actor: string) => (other.query("SELECT count(*) AS n FROM activity_entries WHERE actor = ?").get(actor) as { n: number }).n;
const recorder = (writer: ReturnType<typeof startActivityWriter>) =>
  createActivityRecorder({ writer, transaction: database.transaction, store: stores.activity, writes: database.writes, logger, nowMicros: () => Date.now() * 1000, flushMs: 5 });

/** The writer, watched: how many slices it was handed, and the most that were out at once. */
function counted(writer: NonNullable<ReturnType<typeof startActivityWriter>>) {
  const seen = { slices: 0, out: 0, mostOut: 0 };
  return {
    seen,
    writer: {
      ...writer,
      write(entries: readonly ActivityEntry[]) {
        seen.slices++;
        seen.mostOut = Math.max(seen.mostOut, ++seen.out);
        return writer.write(entries).finally(() => seen.out--);
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

  test("a thread that fails refuses what it was handed and hands the writing back to the API's connection; nothing is lost", async () => {
    // A directory is no database: the thread fails as it opens it.
    const writer = startActivityWriter(dirname(fresh.path), { logger })!;
    await expect(writer.write([entry("handed")])).rejects.toThrow(/gone/);
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
