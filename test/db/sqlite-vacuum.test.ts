import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { convertToIncrementalVacuum, openDatabase } from "../../shared/db/client.ts";
import { sqliteDatabase } from "../../shared/db/database.ts";
import { lifetimesFrom, pruneExpired } from "../../shared/retention.ts";

/** On SQLite the pages pruning frees go back to the file system; a file made earlier converts once. */
const dir = mkdtempSync(join(tmpdir(), "onboarding-vacuum-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const pagesOf = (db: Database) => (db.query("PRAGMA page_count").get() as { page_count: number }).page_count;
const mode = (db: Database) => (db.query("PRAGMA auto_vacuum").get() as { auto_vacuum: number }).auto_vacuum;

describe("SQLite's freed pages", () => {
  test("a new file is incremental, and pruning shrinks it", async () => {
    const db = openDatabase(join(dir, "new.sqlite"));
    expect(mode(db.$client)).toBe(2);
    const insert = db.$client.query(
      "INSERT INTO activity_entries (request_id, org_id, key_id, actor, method, route, status, address, duration_ms, at) VALUES (?, 'org_v', 'key_v', 'v', 'GET', ?, 200, NULL, 1, 1000000)",
    );
    db.$client.transaction(() => {
      for (let i = 0; i < 20_000; i++) insert.run(`req_v_${i}`, `/api/v1/${"x".repeat(100)}`);
    })();
    db.$client.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    const grown = pagesOf(db.$client);
    const pruned = await pruneExpired(sqliteDatabase(db), lifetimesFrom({}), Date.now() * 1000);
    expect(pruned.activity_entries).toBe(20_000);
    db.$client.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    expect(pagesOf(db.$client)).toBeLessThan(grown / 4);
    db.$client.close();
  });

  test("a file made before this version converts once (retention vacuum), keeping its data", () => {
    const path = join(dir, "before.sqlite");
    writeFileSync(path, Bun.gunzipSync(readFileSync(join(import.meta.dir, "../fixtures/sqlite-0004.sqlite.gz"))));
    const db = openDatabase(path);
    expect(mode(db.$client)).toBe(0); // the pragma at open cannot change a file that has tables
    expect(convertToIncrementalVacuum(db).converted).toBe(true);
    expect(mode(db.$client)).toBe(2);
    expect(convertToIncrementalVacuum(db).converted).toBe(false);
    expect(db.$client.query("SELECT slug FROM organizations").all()).toEqual([{ slug: "acme" }]);
    db.$client.close();
  });
});
