import { afterAll, describe, expect, test } from "bun:test";
import { Database as Sqlite } from "bun:sqlite";
import { createKeyUsage } from "../../api/auth/key-usage.ts";
import { createApiStores } from "../../api/stores.ts";
import { systemClock } from "../../shared/clock.ts";
import { sqliteDatabase } from "../../shared/db/database.ts";
import { run } from "../../shared/db/flow.ts";
import { createApiKey, createWorkspace } from "../../shared/workspaces.ts";
import { freshDatabase } from "../support/test-app.ts";

/**
 * The shutdown's last write of key usage (`flush`) waits out a write lock held elsewhere for a
 * moment instead of giving the counts up: a real file, the lock held by another connection.
 */
const fresh = freshDatabase();
fresh.db.$client.exec("PRAGMA busy_timeout = 0"); // as the API opens it: a lock is waited for with timers, never by SQLite
const database = sqliteDatabase(fresh.db);
const other = new Sqlite(fresh.path, { strict: true });
afterAll(() => {
  other.close();
  fresh.cleanup();
});

describe("key usage at shutdown", () => {
  test("a flush that meets another connection's write lock tries again and writes the counts once it is free", async () => {
    await run(createWorkspace(database, systemClock, { slug: "flushing", name: "Flushing" }));
    const { row } = await run(createApiKey(database, systemClock, { workspaceSlug: "flushing", name: "flushed", mode: "live", tier: "paid" }));
    const usage = createKeyUsage(createApiStores(database, () => {}).apiKeys, systemClock);
    for (let i = 0; i < 3; i++) usage.record(row.id, "10.0.0.9");
    other.exec("BEGIN IMMEDIATE");
    setTimeout(() => other.exec("COMMIT"), 60);
    await usage.flush();
    const { request_count } = other.query("SELECT request_count FROM api_keys WHERE id = ?").get(row.id) as { request_count: number };
    expect(request_count).toBe(3);
  });
});
