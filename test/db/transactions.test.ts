import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeTransaction } from "../../shared/db/client.ts";
import { createTestApp, type TestApp } from "../support/test-app.ts";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const count = (table: string) => (t.db.$client.query(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;

describe("write transactions", () => {
  test("a failure after writes rolls every write back, including the display-id sequence", async () => {
    const { org_id: orgId } = t.db.$client.query("SELECT id AS org_id FROM organizations WHERE slug = 'acme'").get() as { org_id: string };
    const onboardingsBefore = count("onboardings");
    const outboxBefore = count("outbox");
    const sequences = () => t.db.$client.query("SELECT kind, last_display_id FROM sequences ORDER BY kind").all();
    const sequencesBefore = sequences();

    expect(() =>
      writeTransaction(t.db, () => {
        const seq = t.services.nextSequence(orgId, "onboarding", 1);
        t.db.$client.run("INSERT INTO outbox (org_id, queue, name, payload, created_at) VALUES ('o', 'records', 'x', '{}', 1)");
        expect(seq.displayId).toBeGreaterThan(0);
        throw new Error("boom after the writes");
      }),
    ).toThrow("boom after the writes");

    expect(count("onboardings")).toBe(onboardingsBefore);
    expect(count("outbox")).toBe(outboxBefore);
    expect(sequences()).toEqual(sequencesBefore);
  });

  test("an async callback is refused and what it wrote before returning is rolled back", async () => {
    const before = count("outbox");
    expect(() =>
      writeTransaction(t.db, (async () => {
        t.db.$client.run("INSERT INTO outbox (org_id, queue, name, payload, created_at) VALUES ('o', 'records', 'x', '{}', 1)");
        await Promise.resolve();
      }) as () => unknown),
    ).toThrow("must be synchronous");
    expect(count("outbox")).toBe(before);
  });

  test("a request refused half-way leaves nothing behind (taken slug on create)", async () => {
    await t.call("POST", "/api/v1/customers", { body: { name: "Taken", slug: "taken" } });
    const customersBefore = count("customers");
    const sequenceBefore = t.db.$client.query("SELECT last_display_id FROM sequences WHERE kind = 'customer'").get();
    const refused = await t.call("POST", "/api/v1/customers", { body: { name: "Again", slug: "taken" } });
    expect(refused.status).toBe(409);
    expect(count("customers")).toBe(customersBefore);
    expect(t.db.$client.query("SELECT last_display_id FROM sequences WHERE kind = 'customer'").get()).toEqual(sequenceBefore);
  });
});
