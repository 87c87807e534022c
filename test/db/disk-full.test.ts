import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, testEngine, type TestApp } from "../support/test-app.ts";

/**
 * A full disk is a bad day, not a disaster: SQLite refusing to grow (`SQLITE_FULL`, reproduced
 * with `PRAGMA max_page_count` on the API's own connection) answers 503 `service_unavailable`
 * with `Retry-After`, writes nothing half, readiness says `full`, and the service recovers by
 * itself once space is free. (PostgreSQL's `53100 disk_full` takes the same path, by its
 * SQLSTATE; this machine cannot fill a PostgreSQL disk for a test.)
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe.skipIf(testEngine() !== "sqlite")("the database out of space", () => {
  test("writes answer 503 with Retry-After and keep nothing half; readiness says full; space freed, both recover", async () => {
    const sqlite = t.db.$client;
    const pages = (sqlite.query("PRAGMA page_count").get() as { page_count: number }).page_count;
    sqlite.exec(`PRAGMA max_page_count = ${pages + 3}`);
    const metadata = { filler: "x".repeat(3000) };
    const created: string[] = [];
    let refused: Awaited<ReturnType<TestApp["call"]>> | undefined;
    for (let i = 0; i < 200 && !refused; i++) {
      const r = await t.call("POST", "/api/v1/customers", { body: { name: `Space ${i}`, metadata } });
      if (r.status === 201) created.push(r.body.id);
      else refused = r;
    }
    expect(refused?.status).toBe(503);
    expect((refused!.body as { error: unknown }).error).toEqual({ type: "internal_error", code: "service_unavailable", message: "The database is out of space. Retry after 30 s." });
    expect(refused!.headers.get("retry-after")).toBe("30");

    // Nothing half: every customer answered 201 is there with its activity entry, no other.
    expect(await t.count("customers", "name LIKE 'Space %'")).toBe(created.length);
    expect(await t.count("activity_entries", "method = 'POST' AND status = 201 AND route = '/api/v1/customers'")).toBeGreaterThanOrEqual(created.length);

    const ready = await t.call("GET", "/api/v1/health/ready", { key: null });
    expect({ status: ready.status, database: ready.body.checks.database }).toEqual({ status: 503, database: "full" });

    sqlite.exec("PRAGMA max_page_count = 1073741823");
    const after = await t.call("POST", "/api/v1/customers", { body: { name: "Space after", metadata } });
    expect(after.status).toBe(201);
    const readyAgain = await t.call("GET", "/api/v1/health/ready", { key: null });
    expect({ status: readyAgain.status, database: readyAgain.body.checks.database }).toEqual({ status: 200, database: "ok" });
  });
});
