import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { drizzle } from "drizzle-orm/bun-sql";
import { SQL } from "bun";
import { systemClock } from "../../shared/clock.ts";
import { createActivityStore } from "../../shared/db/activity.store.ts";
import { dumpBoth } from "../../shared/db/copy.store.ts";
import type { PgDb } from "../../shared/db/postgres.ts";
import * as pgSchema from "../../shared/db/schema.pg.ts";
import { run, runSync } from "../../shared/db/flow.ts";
import { issueInvite } from "../../shared/invites.ts";
import { addUser } from "../../shared/workspaces.ts";
import { freshPostgresDatabase, testPostgresUrl } from "../support/postgres.ts";
import { createTestApp, testEngine, type TestApp } from "../support/test-app.ts";
import { installationId } from "../../shared/installation.store.ts";

const server = testPostgresUrl();

function admin(env: Record<string, string>, ...args: string[]) {
  const result = Bun.spawnSync([process.execPath, "admin/cli.ts", ...args], { env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  const lines = result.stdout.toString().trim().split("\n");
  return { code: result.exitCode, stderr: result.stderr.toString(), json: () => JSON.parse(lines[lines.length - 1]!) };
}

// The copy's source is a SQLite file, so the suite's app runs on SQLite whatever TEST_ENGINE says.
describe.skipIf(!server || testEngine() !== "sqlite")("npm run admin -- db copy --to postgres://…", () => {
  let t: TestApp;
  let target: Awaited<ReturnType<typeof freshPostgresDatabase>>;
  let client: SQL;
  let pg: PgDb;
  beforeAll(async () => {
    t = await createTestApp();
    target = await freshPostgresDatabase(server!);
    client = new SQL({ url: target.url, max: 2 });
    pg = drizzle(client, { schema: pgSchema }) as PgDb;
    // A little of everything: records with display ids, a phase change's outbox rows, a stored
    // idempotent response, activity, key usage, a workspace user with an invite.
    for (let i = 0; i < 3; i++) {
      const customer = (await t.call("POST", "/api/v1/customers", { body: { name: `Customer ${i}`, metadata: { i } } })).body;
      await t.call("POST", `/api/v1/customers/${customer.id}/contacts`, { body: { name: "Ada", email: "ada@x.example", is_primary: true } });
      const onboarding = (await t.call("POST", "/api/v1/onboardings", { body: { customer_id: customer.id }, headers: { "idempotency-key": `k-${i}` } })).body;
      await t.call("PATCH", `/api/v1/onboardings/${onboarding.id}`, { body: { phase: "launch", waiting_on_customer: true } });
    }
    await t.call("DELETE", "/api/v1/customers/1");
    const user = await run(addUser(t.database, systemClock, { workspaceSlug: "acme", name: "Casey", email: "casey@acme.example", role: "admin" }));
    await run(issueInvite(t.database, systemClock, user, "http://127.0.0.1:3000"));
    // The installation's id, as its first API or worker process makes it: the copy stays the same installation.
    await run(installationId(t.database, systemClock));
    // More rows than one batch of the copy (500), so the walk from batch to batch is exercised.
    const activity = createActivityStore(t.database.sql);
    for (let i = 0; i < 1234; i++) {
      runSync(activity.insert({ request_id: `req_bulk_${String(i).padStart(5, "0")}`, org_id: "org_bulk", key_id: "key_bulk", actor: "bulk", method: "GET", route: "/x", status: 200, address: null, duration_ms: 0.5, at: i }));
    }
    await t.shutdownApp(); // writes key usage; the database stays open
  });
  afterAll(async () => {
    await client?.close();
    await target?.drop();
    await t?.close();
  });

  test("copies every row into an empty database, verified, ids, display ids and sequences kept", async () => {
    const copied = admin({ DATABASE_URL: `file:${t.dbPath}` }, "db", "copy", "--to", target.url, "--json");
    expect({ code: copied.code, stderr: copied.stderr }).toEqual({ code: 0, stderr: "" });
    const report = copied.json();
    expect(report).toMatchObject({ object: "db_copy", tables: { customers: 3, contacts: 3, onboardings: 3, users: 1, invites: 1, installation: 1 } });
    expect(report.tables.outbox).toBeGreaterThan(0);
    expect(report.tables.activity_entries).toBeGreaterThan(1234);

    const both = await dumpBoth(t.db, pg);
    for (const name of Object.keys(both.sqlite)) expect({ name, rows: both.postgres[name] }).toEqual({ name, rows: both.sqlite[name] });
    expect(report.total).toBe(Object.values(both.sqlite).reduce((n, rows) => n + rows.length, 0));

    // Identity columns continue after the copied ids; the per-workspace sequence after its display ids.
    const maxOutbox = Math.max(...(both.sqlite.outbox as { id: number }[]).map((r) => r.id));
    const [added] = await pg.insert(pgSchema.outbox).values({ queue: "records", name: "x", payload: "{}", createdAt: 1 }).returning({ id: pgSchema.outbox.id });
    expect(added!.id).toBe(maxOutbox + 1);
    expect(await client`SELECT last_display_id FROM sequences WHERE kind = 'customer'`).toEqual([{ last_display_id: 3 }]);
  });

  test("refuses a target that is not empty, and a target that is not PostgreSQL", () => {
    const again = admin({ DATABASE_URL: `file:${t.dbPath}` }, "db", "copy", "--to", target.url);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("not empty");
    const wrong = admin({ DATABASE_URL: `file:${t.dbPath}` }, "db", "copy", "--to", "file:/tmp/x.sqlite");
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain("--to must be a postgres://");
  });
});
