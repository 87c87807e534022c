import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase, type Db } from "../../shared/db/client.ts";

const dir = mkdtempSync(join(tmpdir(), "onboarding-checkpoints-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Writes ~1,500 pages in 15 commits of 100 rows of 4,000 bytes (a page each). */
function writePages(db: Db): void {
  db.$client.exec("CREATE TABLE IF NOT EXISTS filler (b BLOB)");
  const insert = db.$client.prepare("INSERT INTO filler (b) VALUES (randomblob(4000))");
  for (let commit = 0; commit < 15; commit++) db.$client.transaction(() => { for (let i = 0; i < 100; i++) insert.run(); })();
}

const walPages = (path: string) => statSync(`${path}-wal`).size / 4096;

describe("WAL checkpoints on SQLite", () => {
  test("the API's connection leaves checkpoints to the worker's (SQLite's default, 1,000 pages) up to 10,000 pages of WAL", () => {
    const apiPath = join(dir, "api.sqlite");
    const api = openDatabase(apiPath, { busyTimeoutMs: 0, walAutocheckpointPages: 10_000 });
    expect(api.$client.query("PRAGMA wal_autocheckpoint").get()).toEqual({ wal_autocheckpoint: 10_000 });
    writePages(api);
    // No commit checkpointed: the WAL holds every page written.
    expect(walPages(apiPath)).toBeGreaterThan(1_500);

    // The worker's connection, at the default: its next commit checkpoints what the API wrote,
    // and the WAL starts over from its beginning instead of growing.
    const worker = openDatabase(apiPath);
    expect(worker.$client.query("PRAGMA wal_autocheckpoint").get()).toEqual({ wal_autocheckpoint: 1_000 });
    worker.$client.exec("INSERT INTO filler (b) VALUES (x'00')");
    const before = walPages(apiPath);
    writePages(api);
    expect(walPages(apiPath)).toBe(before);
    api.$client.close();
    worker.$client.close();

    // The same writes on a connection at the default checkpoint as they go: the WAL never
    // grows much past 1,000 pages.
    const alonePath = join(dir, "alone.sqlite");
    const alone = openDatabase(alonePath);
    writePages(alone);
    expect(walPages(alonePath)).toBeLessThan(1_200);
    alone.$client.close();
  });
});
