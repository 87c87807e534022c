import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { parseDateTimeMicros } from "../../shared/clock.ts";
import { CustomerList } from "../../api/customers/customers.schema.ts";
import { createTestApp, expectError, expectSchema, testEngine, type TestApp } from "../support/test-app.ts";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

async function walk(path: string, limit: number): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  for (;;) {
    const separator = path.includes("?") ? "&" : "?";
    const url: string = `${path}${separator}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const page: { status: number; body: any } = await t.call("GET", url);
    expect(page.status).toBe(200);
    expect(page.body.data.length).toBeLessThanOrEqual(limit);
    ids.push(...page.body.data.map((r: { id: string }) => r.id));
    pages++;
    if (!page.body.has_more) return { ids, pages };
    cursor = page.body.next_cursor;
  }
}

describe("pagination", () => {
  test("40 records created concurrently are walked 3 at a time without a skip or a repeat", async () => {
    const created = await Promise.all(
      Array.from({ length: 40 }, (_, i) => t.call("POST", "/api/v1/customers", { body: { name: `Concurrent ${i}` } })),
    );
    expect(created.every((r) => r.status === 201)).toBe(true);
    const stamps = created.map((r) => r.body.created_at as string);
    expect(new Set(stamps).size).toBe(40); // unique created_at, even at the same instant
    expect(new Set(created.map((r) => r.body.display_id)).size).toBe(40);

    const { ids, pages } = await walk("/api/v1/customers", 3);
    expect(pages).toBe(14);
    expect(new Set(ids).size).toBe(40);
    expect(ids.sort()).toEqual(created.map((r) => r.body.id).sort());
  });

  test("pages are newest first and has_more is authoritative on an exactly full last page", async () => {
    const first = await t.call("GET", "/api/v1/customers?limit=20");
    expectSchema(CustomerList, first.body);
    const stamps = first.body.data.map((c: { created_at: string }) => parseDateTimeMicros(c.created_at)!);
    expect([...stamps].sort((a, b) => b - a)).toEqual(stamps);
    expect(first.body.has_more).toBe(true);
    const second = await t.call("GET", `/api/v1/customers?limit=20&cursor=${first.body.next_cursor}`);
    expect(second.body.data).toHaveLength(20);
    expect(second.body.has_more).toBe(false);
  });

  test("the default page size is 20 and the maximum 100", async () => {
    expect((await t.call("GET", "/api/v1/customers")).body.data).toHaveLength(20);
    expect((await t.call("GET", "/api/v1/customers?limit=100")).body.data).toHaveLength(40);
    expectError(await t.call("GET", "/api/v1/customers?limit=101"), 400, "too_big", "limit");
    expectError(await t.call("GET", "/api/v1/customers?limit=0"), 400, "too_small", "limit");
    expectError(await t.call("GET", "/api/v1/customers?limit=ten"), 400, "invalid_type", "limit");
    expectError(await t.call("GET", "/api/v1/customers?limit=2.5"), 400, "invalid_type", "limit");
  });

  test("an empty page is exactly the documented envelope", async () => {
    const response = await t.call("GET", "/api/v1/customers?cursor=2000-01-01T00:00:00Z");
    expect(response.body).toEqual({ object: "list", data: [], has_more: false, next_cursor: null });
  });

  test("a cursor that is not an ISO 8601 datetime gets the exact error", async () => {
    for (const cursor of ["yesterday", "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z", "1700000000", ""]) {
      const response = await t.call("GET", `/api/v1/customers?cursor=${encodeURIComponent(cursor)}`);
      expect(response.status).toBe(400);
      expect(response.body).toEqual({
        error: { type: "invalid_request_error", code: "invalid_string", message: "Invalid datetime", field: "cursor" },
      });
    }
  });

  test("a cursor with an offset or extra precision means the same instant", async () => {
    const first = await t.call("GET", "/api/v1/customers?limit=5");
    const cursor = first.body.next_cursor as string; // ...SS.ffffffZ
    const withNanos = cursor.replace("Z", "001Z");
    const page = await t.call("GET", `/api/v1/customers?limit=5&cursor=${withNanos}`);
    // Rounded up to the next microsecond: the record at `cursor` itself is now included.
    expect(page.body.data[0].created_at).toBe(cursor);
  });

  test("filters apply before pagination and soft-deleted rows never appear", async () => {
    const active = await Promise.all(
      Array.from({ length: 5 }, (_, i) => t.call("POST", "/api/v1/customers", { body: { name: `Active ${i}`, status: "active" } })),
    );
    await t.call("DELETE", `/api/v1/customers/${active[0]!.body.id}`);
    const { ids } = await walk("/api/v1/customers?status=active", 2);
    expect(ids.sort()).toEqual(active.slice(1).map((r) => r.body.id).sort());
    expectError(await t.call("GET", "/api/v1/customers?status=gone"), 400, "invalid_enum_value", "status");
  });

  test("onboarding lists filter by phase and state, workspace-wide and per customer", async () => {
    const customer = await t.call("POST", "/api/v1/customers", { body: { name: "Filtered" } });
    const made = [];
    for (const [phase, state] of [["review", "active"], ["review", "at_risk"], ["launch", "at_risk"], ["review", "at_risk"]]) {
      made.push((await t.call("POST", "/api/v1/onboardings", { body: { customer_id: customer.body.display_id, phase, state } })).body);
    }
    const ids = (r: { body: { data: { id: string }[] } }) => r.body.data.map((o) => o.id);
    expect(ids(await t.call("GET", "/api/v1/onboardings?phase=review&state=at_risk"))).toEqual([made[3].id, made[1].id]);
    expect(ids(await t.call("GET", "/api/v1/onboardings?state=at_risk&limit=2"))).toEqual([made[3].id, made[2].id]);
    expect(ids(await t.call("GET", `/api/v1/customers/${customer.body.id}/onboardings?phase=launch`))).toEqual([made[2].id]);
    const { ids: walked } = await walk(`/api/v1/customers/${customer.body.display_id}/onboardings`, 3);
    expect(walked).toEqual(made.map((o) => o.id).reverse());
  });

  // SQLite's planner answers from the schema alone; PostgreSQL's depends on table statistics
  // (a near-empty table is scanned), so its indexes are checked by the schema parity test.
  test.skipIf(testEngine() !== "sqlite")("every list query is served by an index, never a table scan or a sort", () => {
    const plans = [
      "SELECT * FROM customers WHERE org_id = 'o' AND deleted_at IS NULL AND created_at < 1 ORDER BY created_at DESC LIMIT 3",
      "SELECT * FROM customers WHERE org_id = 'o' AND deleted_at IS NULL AND status = 'active' AND created_at < 1 ORDER BY created_at DESC LIMIT 3",
      "SELECT * FROM onboardings WHERE org_id = 'o' AND deleted_at IS NULL AND created_at < 1 ORDER BY created_at DESC LIMIT 3",
      "SELECT * FROM onboardings WHERE org_id = 'o' AND deleted_at IS NULL AND phase = 'launch' AND created_at < 1 ORDER BY created_at DESC LIMIT 3",
      "SELECT * FROM onboardings WHERE org_id = 'o' AND deleted_at IS NULL AND state = 'waiting' AND created_at < 1 ORDER BY created_at DESC LIMIT 3",
      "SELECT * FROM onboardings WHERE org_id = 'o' AND deleted_at IS NULL AND phase = 'launch' AND state = 'waiting' AND created_at < 1 ORDER BY created_at DESC LIMIT 3",
      "SELECT * FROM onboardings WHERE org_id = 'o' AND deleted_at IS NULL AND customer_id = 'c' AND created_at < 1 ORDER BY created_at DESC LIMIT 3",
      "SELECT * FROM contacts WHERE org_id = 'o' AND customer_id = 'c' AND deleted_at IS NULL AND created_at < 1 ORDER BY created_at DESC LIMIT 3",
    ];
    for (const query of plans) {
      const plan = t.db.$client.query(`EXPLAIN QUERY PLAN ${query}`).all() as { detail: string }[];
      const details = plan.map((p) => p.detail).join(" | ");
      expect(details).toContain("USING INDEX");
      expect(details).not.toContain("TEMP B-TREE");
    }
  });
});
