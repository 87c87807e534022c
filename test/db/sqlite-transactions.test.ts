import { afterAll, describe, expect, test } from "bun:test";
import { isDatabaseBusy } from "../../shared/db/busy.ts";
import { writeTransaction } from "../../shared/db/client.ts";
import { outsideOthers, sqliteTransaction } from "../../shared/db/sqlite-transactions.ts";
import { freshDatabase } from "../support/test-app.ts";

const database = freshDatabase();
const { db } = database;
afterAll(() => database.cleanup());

const sqlite = db.$client;
const insert = (bucket: string, failures = 0) => sqlite.run("INSERT INTO login_failures (bucket, window_started_at, failures) VALUES (?, 0, ?)", [bucket, failures]);
const read = (bucket: string) => (sqlite.query("SELECT failures FROM login_failures WHERE bucket = ?").get(bucket) as { failures: number } | null)?.failures ?? null;

describe("asynchronous SQLite transactions", () => {
  test("a failure after an await rolls back what was written before it", async () => {
    await expect(
      sqliteTransaction(db, async () => {
        insert("rollback");
        await Bun.sleep(5);
        throw new Error("boom after the await");
      }),
    ).rejects.toThrow("boom after the await");
    expect(read("rollback")).toBeNull();
  });

  test("no interleaving: while one request's transaction awaits, another request's read waits and never sees its rows", async () => {
    const events: string[] = [];
    const writer = sqliteTransaction(db, async () => {
      insert("uncommitted");
      events.push("written");
      await Bun.sleep(40);
      events.push("throwing");
      throw new Error("rolled back");
    }).catch(() => {});
    await Bun.sleep(5); // the writer is inside its transaction, awaiting
    const seen = await outsideOthers(db, () => {
      events.push(sqlite.inTransaction ? "read inside the open transaction" : "read after it ended");
      return read("uncommitted");
    });
    await writer;
    expect(seen).toBeNull();
    expect(events).toEqual(["written", "throwing", "read after it ended"]);
  });

  test("a synchronous write from another request is refused as busy instead of joining the open transaction", async () => {
    let refused: unknown;
    const writer = sqliteTransaction(db, async () => {
      insert("outer");
      await Bun.sleep(20);
      throw new Error("outer rolls back");
    }).catch(() => {});
    await Bun.sleep(5);
    try {
      writeTransaction(db, () => insert("other request"));
    } catch (error) {
      refused = error;
    }
    await writer;
    expect(isDatabaseBusy(refused)).toBe(true);
    expect([read("outer"), read("other request")]).toEqual([null, null]);
    writeTransaction(db, () => insert("other request")); // once the first has ended
    expect(read("other request")).toBe(0);
  });

  test("50 concurrent read-then-write transactions with awaits in between lose no update", async () => {
    insert("counter");
    await Promise.all(
      Array.from({ length: 50 }, () =>
        sqliteTransaction(db, async () => {
          const current = read("counter")!;
          await Promise.resolve();
          await Bun.sleep(0);
          sqlite.run("UPDATE login_failures SET failures = ? WHERE bucket = 'counter'", [current + 1]);
        }),
      ),
    );
    expect(read("counter")).toBe(50);
  });

  test("a transaction begun inside another joins it, and its synchronous writes too", async () => {
    await expect(
      sqliteTransaction(db, async () => {
        await sqliteTransaction(db, async () => insert("nested"));
        writeTransaction(db, () => insert("nested sync"));
        await Bun.sleep(1);
        throw new Error("outer fails");
      }),
    ).rejects.toThrow("outer fails");
    expect([read("nested"), read("nested sync")]).toEqual([null, null]);
  });
});
