import { afterAll, describe, expect, test } from "bun:test";
import { Database as Sqlite } from "bun:sqlite";
import { createAuthenticator } from "../../api/auth/authenticate.ts";
import { createApiStores } from "../../api/stores.ts";
import { systemClock } from "../../shared/clock.ts";
import { inTransaction } from "../../shared/db/client.ts";
import { sqliteDatabase } from "../../shared/db/database.ts";
import { run, runSync } from "../../shared/db/flow.ts";
import { createApiKey, createWorkspace } from "../../shared/workspaces.ts";
import { countStatementCalls } from "../support/statement-calls.ts";
import { freshDatabase } from "../support/test-app.ts";

/**
 * The read transaction the GETs of one event-loop turn share on SQLite
 * (shared/db/turn-snapshot.ts), on a real file with a second connection committing beside it:
 * the reads that ask share it while nothing commits, a read that joins it answers what a read
 * of its own would (whenever in the event loop the snapshot began: a commit since its start is
 * seen), and nothing else ever runs inside it.
 */
const fresh = freshDatabase();
const database = sqliteDatabase(fresh.db);
const connection = fresh.db.$client;
connection.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)");
const other = new Sqlite(fresh.path, { strict: true });
other.exec("PRAGMA busy_timeout = 2000");
afterAll(() => {
  other.close();
  database.close();
  fresh.cleanup();
});

// The connection's BEGINs counted: one per snapshot.
const beginCalls = countStatementCalls(connection, (text) => text === "BEGIN", "run");
const shared = database.sql.statement<{ n: number }>("SELECT count(*) AS n FROM notes", { turnSnapshot: true });
const own = database.sql.statement<{ n: number }>("SELECT count(*) AS n FROM notes");
const insert = database.sql.statement("INSERT INTO notes (body) VALUES ($body)");
const count = (statement: typeof shared) => runSync(statement.get())!.n;
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe("the turn's read snapshot", () => {
  test("reads that ask share one read transaction, which ends when the turn's immediates run", async () => {
    await nextTurn();
    const begun = beginCalls.count;
    const before = count(shared);
    expect(connection.inTransaction).toBe(true);
    expect(count(shared)).toBe(before);
    expect(beginCalls.count - begun).toBe(1);
    await nextTurn();
    expect(connection.inTransaction).toBe(false);
  });

  test("a read joins only while nothing has committed since the snapshot began: after a commit of any connection it begins afresh and sees it", async () => {
    await nextTurn();
    const begun = beginCalls.count;
    const before = count(shared);
    other.run("INSERT INTO notes (body) VALUES ('during the turn')");
    expect(count(shared)).toBe(before + 1);
    expect(beginCalls.count - begun).toBe(2);
    expect(count(shared)).toBe(before + 1);
    expect(beginCalls.count - begun).toBe(2);
  });

  test("any other statement ends it first, and sees what committed since it began", async () => {
    await nextTurn();
    const before = count(shared);
    other.run("INSERT INTO notes (body) VALUES ('seen by a read of its own')");
    expect(count(own)).toBe(before + 1);
    expect(connection.inTransaction).toBe(false);
  });

  test("a write never runs inside it: a write transaction ends it, commits, and the next read of the turn sees it", async () => {
    await nextTurn();
    const before = count(shared);
    expect(inTransaction(fresh.db)).toBe(false); // the snapshot is not a transaction a write would nest in
    run(database.transaction(() => insert.run({ body: "written in the turn" })));
    expect(connection.inTransaction).toBe(false);
    // Committed already: another connection sees it before the turn ends.
    expect((other.query("SELECT count(*) AS n FROM notes").get() as { n: number }).n).toBe(before + 1);
    expect(count(shared)).toBe(before + 1);
  });

  test("a single write statement outside a transaction ends it too, and is committed at once", async () => {
    await nextTurn();
    const before = count(shared);
    run(insert.run({ body: "autocommit" }));
    expect(connection.inTransaction).toBe(false);
    expect((other.query("SELECT count(*) AS n FROM notes").get() as { n: number }).n).toBe(before + 1);
  });

  test("a revocation committed after a GET's snapshot began is seen by the next authentication of the same turn", async () => {
    await run(createWorkspace(database, systemClock, { slug: "snapshot", name: "Snapshot" }));
    const { key, row } = await run(createApiKey(database, systemClock, { workspaceSlug: "snapshot", name: "snapshot", mode: "live", tier: "paid" }));
    const authenticate = createAuthenticator(createApiStores(database, () => {}).apiKeys, database.watchCommits());
    const header = `Bearer ${key}`;
    authenticate(header);
    await nextTurn();
    count(shared); // a GET's version read: the snapshot is open
    other.run("UPDATE api_keys SET revoked_at = ? WHERE id = ?", [systemClock.nowMicros(), row.id]);
    expect(() => authenticate(header)).toThrow(/revoked/);
  });
});
