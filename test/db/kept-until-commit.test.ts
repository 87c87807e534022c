import { afterAll, describe, expect, test } from "bun:test";
import { createOnboardingStore } from "../../api/onboardings/onboardings.store.ts";
import { sqliteDatabase } from "../../shared/db/database.ts";
import { openDatabase } from "../../shared/db/client.ts";
import { runSync } from "../../shared/db/flow.ts";
import { countStatementCalls } from "../support/statement-calls.ts";
import { freshDatabase } from "../support/test-app.ts";

/**
 * Reads kept until the next commit (shared/db/kept-until-commit.ts, `keptUntilCommit`) and the
 * value the GET of an onboarding keeps so on SQLite, the workspace's onboarding revision
 * (drizzle/sqlite/0014_onboarding_revisions.sql): a kept answer is used until any connection of
 * any process commits, and then read again; a read inside the connection's own transaction is
 * never kept; the revision moves with every change and deletion of the workspace's onboardings,
 * whoever makes it, and with nothing else.
 */
const fresh = freshDatabase();
const database = sqliteDatabase(fresh.db);
const connection = fresh.db.$client;
connection.exec("CREATE TABLE settings (name TEXT PRIMARY KEY, value TEXT NOT NULL)");
connection.exec("INSERT INTO settings VALUES ('a', 'one'), ('b', 'uno')");
afterAll(() => {
  database.close();
  fresh.cleanup();
});

// Reads of the setting counted: a kept answer is one no statement was run for.
const readCalls = countStatementCalls(connection, (text) => text.startsWith("SELECT value"), "get");
const setting = database.sql.statement<{ value: string }>("SELECT value FROM settings WHERE name = $name", { keptUntilCommit: true });
const valueOf = (name: string) => runSync(setting.get({ name }))?.value;

/** A commit made by another process, on a connection of its own. */
function commitElsewhere(sql: string, path = fresh.path): void {
  const script = `import { Database } from "bun:sqlite"; const db = new Database(${JSON.stringify(path)}); db.exec("PRAGMA busy_timeout = 2000"); db.exec(${JSON.stringify(sql)}); db.close();`;
  const child = Bun.spawnSync([process.execPath, "-e", script], { stderr: "pipe" });
  if (child.exitCode !== 0) throw new Error(child.stderr.toString());
}

describe("reads kept until a commit", () => {
  test("an answer is kept per parameters until another process commits, then read again", () => {
    expect(database.sql.keepsUntilCommit).toBe(true);
    const before = readCalls.count;
    expect([valueOf("a"), valueOf("b"), valueOf("a"), valueOf("b"), valueOf("missing"), valueOf("missing")]).toEqual(["one", "uno", "one", "uno", undefined, undefined]);
    expect(readCalls.count - before).toBe(3);
    commitElsewhere("UPDATE settings SET value = 'two' WHERE name = 'a'");
    expect([valueOf("a"), valueOf("a"), valueOf("b")]).toEqual(["two", "two", "uno"]);
    expect(readCalls.count - before).toBe(5);
  });

  test("a commit of the connection's own, or of any table, is a commit too", () => {
    valueOf("a");
    const before = readCalls.count;
    connection.exec("CREATE TABLE IF NOT EXISTS other (n INTEGER)");
    connection.exec("INSERT INTO other VALUES (1)");
    expect(valueOf("a")).toBe("two");
    expect(readCalls.count - before).toBe(1);
  });

  test("a read inside the connection's own transaction is not kept: what it saw may never commit", () => {
    valueOf("b");
    connection.exec("BEGIN");
    connection.exec("UPDATE settings SET value = 'uncommitted' WHERE name = 'b'");
    expect(valueOf("b")).toBe("uncommitted");
    connection.exec("ROLLBACK");
    expect(valueOf("b")).toBe("uno");
  });

  test("a connection with no commits to watch (in memory) reads every time", () => {
    const memory = sqliteDatabase(openDatabase(":memory:"));
    expect(memory.sql.keepsUntilCommit).toBe(false);
    memory.close();
  });
});

describe("a workspace's onboarding revision (SQLite)", () => {
  const migrated = freshDatabase();
  const db = sqliteDatabase(migrated.db);
  const onboardings = createOnboardingStore(db.sql);
  afterAll(() => {
    db.close();
    migrated.cleanup();
  });
  const revisionOf = (orgId: string) => runSync(onboardings.revision!(orgId));
  const seed = (sql: string) => migrated.db.$client.exec(sql);
  const elsewhere = (sql: string) => commitElsewhere(sql, migrated.path);

  test("moves with every change and deletion of the workspace's onboardings, by any writer, and with nothing else", () => {
    seed(`INSERT INTO organizations (id, slug, name, created_at) VALUES ('org_a', 'a', 'A', 1), ('org_b', 'b', 'B', 1)`);
    seed(`INSERT INTO customers (id, org_id, display_id, name, slug, status, metadata, created_at, updated_at) VALUES ('cus_a', 'org_a', 1, 'C', 'c', 'active', '{}', 1, 1)`);
    expect([revisionOf("org_a"), revisionOf("org_b")]).toEqual([0, 0]);
    const insert = (id: string, displayId: number) =>
      elsewhere(`INSERT INTO onboardings (id, org_id, customer_id, display_id, phase, state, started_at, waiting_on_customer, reminder_email, reminder_slack, reminder_frequency_days, created_at, updated_at, phase_entered_at, last_changed_mode)
        VALUES ('${id}', 'org_a', 'cus_a', ${displayId}, 'before_getting_started', 'on_track', 1, 0, 0, 0, 7, 1, 1, 1, 'live')`);
    insert("onb_1", 1);
    insert("onb_2", 2);
    expect(revisionOf("org_a")).toBe(0); // a new onboarding changes no text kept
    elsewhere(`UPDATE onboardings SET notes = 'plain SQL, updated_at left as it was' WHERE id = 'onb_1'`);
    expect(revisionOf("org_a")).toBe(1);
    elsewhere(`UPDATE onboardings SET notes = 'both' WHERE org_id = 'org_a'`);
    expect(revisionOf("org_a")).toBe(3);
    elsewhere(`DELETE FROM onboardings WHERE id = 'onb_2'`);
    expect([revisionOf("org_a"), revisionOf("org_b")]).toEqual([4, 0]);
  });
});
