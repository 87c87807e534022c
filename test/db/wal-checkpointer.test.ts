import { afterAll, describe, expect, test } from "bun:test";
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
  test("the connection's commits stop checkpointing and the thread copies the WAL back; stopped, the commits checkpoint again", async () => {
    const reports: CheckpointReport[] = [];
    const checkpointer = startWalCheckpointer(sqlite, fresh.path, { everyMs: 20, logger: createLogger("silent"), onReport: (r) => reports.push(r) });
    try {
      expect(autocheckpoint()).toBe(0);
      write(2000);
      // Every frame written reaches the database file, with no commit of this connection checkpointing.
      await waitFor(() => reports.some((r) => r.walFrames >= 2000 && r.checkpointed === r.walFrames), "a checkpoint of the whole WAL");
      expect(reports.every((r) => r.error === undefined)).toBe(true);
    } finally {
      await checkpointer.stop();
    }
    expect(autocheckpoint()).toBe(1000); // SQLite's default
  });

  test("under a steady stream of writes the WAL stays bounded: past its bound the thread checkpoints with RESTART", async () => {
    const reports: CheckpointReport[] = [];
    // What happened when, for the message of a failure: each report and each warning (the valve
    // opening) with its time, and the writes made by then.
    const started = performance.now();
    const trace: string[] = [];
    const at = () => `${Math.round(performance.now() - started)} ms, ${writes} writes`;
    const logger = createLogger("warn", {}, (line) => trace.push(`${at()}: ${line.trim()}`));
    const onReport = (r: CheckpointReport) => {
      reports.push(r);
      trace.push(`${at()}: ${r.walFrames} frames, ${r.checkpointed} copied${r.restarted ? ", restarted" : ""}${r.error ? `, ${r.error}` : ""}`);
    };
    const checkpointer = startWalCheckpointer(sqlite, fresh.path, { everyMs: 20, restartAfterFrames: 500, logger, onReport });
    let writes = 0;
    let refused = 0;
    try {
      // A commit a turn of the event loop, as the API's group commit makes them: with passive
      // checkpoints alone the WAL never starts over and grows without bound.
      const until = Date.now() + 1500;
      while (Date.now() < until) {
        try {
          sqlite.transaction(() => insert.run(new Uint8Array(3000)))();
          writes++;
        } catch (error) {
          if (!/locked|busy/i.test((error as Error).message)) throw error;
          refused++; // a RESTART holds writers off for a moment: the API waits with timers
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(reports.some((r) => r.restarted)).toBe(true);
      expect(writes).toBeGreaterThan(500);
      // Bounded means the WAL keeps starting over, whatever the disk's pace: each generation
      // (frames from one start to the next) is a small part of all that was written. Its size in
      // frames depends on how long each checkpoint's sync takes, which on a disk other processes
      // sync to as well (a whole suite run) varies tenfold, so no fixed number is asserted. A
      // generation is known by its largest report: the WAL started over when a report is smaller.
      const generations: number[] = [0];
      let previous = 0;
      for (const { walFrames } of reports) {
        if (walFrames < 0) continue; // a checkpoint that failed (busy) tells nothing
        if (walFrames < previous) generations.push(0);
        generations[generations.length - 1] = Math.max(generations.at(-1)!, walFrames);
        previous = walFrames;
      }
      const written = generations.reduce((sum, frames) => sum + frames, 0);
      const largest = Math.max(...generations);
      if (generations.length < 3 || largest > written / 2) {
        throw new Error(`the WAL held ${largest} of ${written} frames in one of ${generations.length} generations; what happened:\n${trace.join("\n")}`);
      }
      expect(refused).toBeLessThan(writes);
    } finally {
      await checkpointer.stop();
    }
  });
});
