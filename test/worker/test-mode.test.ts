import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createSideEffectsHarness, waitFor, type SideEffectsHarness } from "../support/side-effects-harness.ts";
import { ManualClock } from "../support/test-app.ts";

/** What a customer's CI suite does with a `svc_test_` key: every kind of change, and nothing outbound. */
const clock = new ManualClock();
let h: SideEffectsHarness;
beforeAll(async () => {
  h = await createSideEffectsHarness({ clock });
  await h.query("UPDATE organizations SET launch_recap_enabled = TRUE WHERE slug = 'acme'");
});
afterAll(() => h.close());

describe("test-mode keys", () => {
  test("change data and write records, but the outbound queue stays empty", async () => {
    const key = h.t.keys.test;
    const customer = (await h.t.call("POST", "/api/v1/customers", { key, body: { name: "Test Co" } })).body;
    await h.t.call("POST", `/api/v1/customers/${customer.id}/contacts`, { key, body: { name: "T", email: "t@test.example", is_primary: true } });
    const onboarding = (await h.t.call("POST", "/api/v1/onboardings", { key, body: { customer_id: customer.id, csm_id: h.users.csm } })).body;
    for (const body of [{ phase: "review" }, { phase: "launch" }, { state: "waiting", waiting_on_customer: true }, { phase: "completed" }, { phase: "launch" }]) {
      expect((await h.t.call("PATCH", `/api/v1/onboardings/${onboarding.id}`, { key, body })).status).toBe(200);
    }
    clock.advanceSeconds(10 * 86_400);
    await h.worker!.scanReminders();
    await waitFor(() => h.settled(), "records to be written");

    const outbound = await h.t.queues.outbound.getJobCounts("waiting", "active", "delayed", "prioritized", "completed", "failed", "paused");
    expect(Object.values(outbound).every((n) => n === 0)).toBe(true);
    expect(h.slack.messages).toEqual([]);
    expect(h.smtp.received).toEqual([]);
    expect(await h.count("deliveries")).toBe(0);
    expect(await h.count("phase_transitions", "onboarding_id = ?", onboarding.id)).toBe(4);
  });
});
