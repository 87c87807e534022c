import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../support/test-app.ts";

/**
 * Where a call's activity entry is written: with the change, in the change's own transaction,
 * when the call changed data; batched through the outbox (at most 50 ms later) otherwise.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const entry = async (requestId: string) => (await t.query("SELECT method, status FROM activity_entries WHERE request_id = ?", requestId))[0] ?? null;
const batched = async (requestId: string) =>
  (await t.query<{ payload: string }>("SELECT payload FROM outbox WHERE name = 'activity.batch'")).some((row) => row.payload.includes(`"${requestId}"`));

describe("activity entries", () => {
  test("a change's entry is committed with it; a read's, a refusal's and a no-op PATCH's are batched", async () => {
    const created = await t.call("POST", "/api/v1/customers", { body: { name: "Entries" } });
    expect(await entry(created.headers.get("request-id")!)).toEqual({ method: "POST", status: 201 });

    const changed = await t.call("PATCH", `/api/v1/customers/${created.body.id}`, { body: { name: "Entries renamed" } });
    expect(await entry(changed.headers.get("request-id")!)).toEqual({ method: "PATCH", status: 200 });

    const calls = [
      await t.call("PATCH", `/api/v1/customers/${created.body.id}`, { body: { name: "Entries renamed" } }), // changes nothing
      await t.call("GET", `/api/v1/customers/${created.body.id}`),
      await t.call("POST", "/api/v1/customers", { body: { name: "" } }), // refused
    ];
    expect(calls.map((c) => c.status)).toEqual([200, 200, 400]);
    await t.activity.drain();
    for (const call of calls) {
      const id = call.headers.get("request-id")!;
      expect({ id, inTable: await entry(id), batched: await batched(id) }).toEqual({ id, inTable: null, batched: true });
    }
  });
});
