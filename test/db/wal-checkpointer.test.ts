import { afterAll, describe, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { createLogger } from "../../shared/logger.ts";
import { startWalCheckpointer, type CheckpointReport } from "../../shared/db/wal-checkpointer.ts";
import { freshDatabase } from "../support/test-app.ts";
import { waitFor } from "../support/wait.ts";

/** The API's checkpoints on a thread of their own, on a real SQLite file written as the API writes it. */
const fresh = freshDatabase();
const sqlite = fresh.db.$client;
sqlite.exec("CREATE TABLE pages (id INTEGER PRIMARY KEY, body BLOB NOT NULL)");
afterAll(() => fresh.cleanup());

const autocheckpoint = () => (sqlite.query("PRAGMA wal_autocheckpoint").get() as { wal_autocheckpoint: number }).wal_autocheckpoint;
const walBytes = () => statSync(`${fresh.path}-wal`).size;
const insert = sqlite.prepare("INSERT INTO pages (body) VALUES (?)");
/** About `pages` pages of WAL, in transactions of 50 rows, as the API's commits would write them. */
function write(pages: number): void {
  for (let i = 0; i < pages; i += 50) {
    sqlite.transaction(() => {
      for (let j = 0; j < 50; j++) insert.run(new Uint8Array(3000));
    })();
  }
}

describe("WAL checkpoints off the event loop", () => {
  test("the connection's commits stop checkpointing, the thread copies the WAL back, and the WAL is reused", async () => {
    const reports: CheckpointReport[] = [];
    const checkpointer = startWalCheckpointer(sqlite, fresh.path, { everyMs: 20, logger: createLogger("silent"), onReport: (r) => reports.push(r) });
    try {
      expect(autocheckpoint()).toBe(0);
      write(2000);
      // Every frame written so far reaches the database file.
      const seen = reports.length;
      await waitFor(() => reports.slice(seen).some((r) => r.walFrames >= 2000 && r.checkpointed === r.walFrames), "a checkpoint of the whole WAL");
      const afterFirst = walBytes();
      // Written again after a complete checkpoint, the WAL starts over from its beginning
      // instead of growing: the file stays the size the first round made it.
      write(2000);
      await waitFor(() => reports.at(-1)!.checkpointed === reports.at(-1)!.walFrames, "the second round checkpointed");
      expect(walBytes()).toBeLessThanOrEqual(afterFirst * 1.1);
      expect(reports.every((r) => r.error === undefined)).toBe(true);
    } finally {
      await checkpointer.stop();
    }
    // Without the thread the connection checkpoints in its commits again (SQLite's default).
    expect(autocheckpoint()).toBe(1000);
  });
});
