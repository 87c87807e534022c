import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { systemClock } from "../../shared/clock.ts";
import { run } from "../../shared/db/flow.ts";
import { addUser } from "../../shared/workspaces.ts";
import { createSideEffectsHarness, waitFor, type SideEffectsHarness } from "../support/side-effects-harness.ts";
import { entriesOf, storedActivity } from "../support/activity.ts";

let h: SideEffectsHarness;
let customer: { id: string };
beforeAll(async () => {
  h = await createSideEffectsHarness();
  await h.query("UPDATE organizations SET launch_recap_enabled = TRUE WHERE slug = 'acme'");
  customer = (await h.t.call("POST", "/api/v1/customers", { body: { name: "Globex" } })).body;
  await h.t.call("POST", `/api/v1/customers/${customer.id}/contacts`, { body: { name: "Ada", email: "ada@globex.example", is_primary: true } });
});
afterAll(() => h.close());

async function launch(key: string, csmId: string | null) {
  const onboarding = (await h.t.call("POST", "/api/v1/onboardings", { key, body: { customer_id: customer.id, csm_id: csmId } })).body;
  const patched = await h.t.call("PATCH", `/api/v1/onboardings/${onboarding.id}`, { key, body: { phase: "launch" } });
  expect(patched.status).toBe(200);
  await waitFor(() => h.settled(), "side effects to settle");
  return onboarding.id as string;
}

describe("launch automations", () => {
  test("a live key's launch sends exactly one DM, one calendar entry and one draft", async () => {
    const sentBefore = h.slack.messages.length;
    const id = await launch(h.t.keys.live, h.users.csm);
    const sent = h.slack.messages.slice(sentBefore);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.channel).toBe("DUCSM1");
    expect(sent[0]!.text).toContain("Globex");
    expect(await h.query("SELECT kind, title FROM calendar_entries WHERE onboarding_id = ?", id)).toEqual([
      { kind: "launch", title: expect.stringContaining("Launch: Globex") },
    ]);
    const drafts = await h.query<{ to_address: string; raw: string }>("SELECT to_address, raw FROM email_drafts WHERE onboarding_id = ?", id);
    expect(drafts).toHaveLength(1);
    expect(drafts[0]!.to_address).toBe("ada@globex.example");
    expect(drafts[0]!.raw).toContain("Subject: Launch recap: Globex");
    expect(h.smtp.received).toHaveLength(0); // a draft is stored, never sent
    expect(await h.deliveries(id)).toEqual([
      { kind: "launch.calendar_entry", status: "sent", detail: "calendar entry created", attempts: 1, target: customer.id },
      { kind: "launch.recap_email", status: "sent", detail: "draft stored (not sent)", attempts: 1, target: "ada@globex.example" },
      { kind: "launch.slack_dm", status: "sent", detail: "direct message posted", attempts: 1, target: "UCSM1" },
    ]);
  });

  test("the phase change's phase-transition record (its timeline entry) is written once", async () => {
    const id = await launch(h.t.keys.live, null);
    const transitions = await h.query<{ from_phase: string; to_phase: string; actor: string; sla_suspended_seconds: number }>(
      "SELECT from_phase, to_phase, actor, sla_suspended_seconds FROM phase_transitions WHERE onboarding_id = ?",
      id,
    );
    expect(transitions).toEqual([{ from_phase: "before_getting_started", to_phase: "launch", actor: "crm-sync", sla_suspended_seconds: 0 }]);
  });

  test("a test key's launch queues nothing on the outbound queue", async () => {
    const before = await h.t.queues.outbound.getJobCounts();
    const id = await launch(h.t.keys.test, h.users.csm);
    const after = await h.t.queues.outbound.getJobCounts();
    expect(after).toEqual(before);
    expect(await h.t.queues.outbound.getJobs(["waiting", "active", "delayed", "completed", "failed"])).not.toContainEqual(
      expect.objectContaining({ data: expect.objectContaining({ onboarding_id: id }) }),
    );
    expect(await h.deliveries(id)).toEqual([]);
    // The records are still written, with the test key as actor.
    expect(await h.query("SELECT actor FROM phase_transitions WHERE onboarding_id = ?", id)).toEqual([{ actor: "ci-suite" }]);
  });

  test("no CSM is skipped; a CSM without Slack fails at once and is not retried", async () => {
    const none = await launch(h.t.keys.live, null);
    expect((await h.deliveries(none)).find((d) => d.kind === "launch.slack_dm")).toMatchObject({ status: "skipped", detail: "no CSM assigned", attempts: 1 });
    const unlinked = await launch(h.t.keys.live, h.users.noSlack);
    expect((await h.deliveries(unlinked)).find((d) => d.kind === "launch.slack_dm")).toMatchObject({ status: "failed", attempts: 1, detail: expect.stringContaining("no Slack user id") });
    const stranger = await launch(h.t.keys.live, "usr_not_in_this_workspace");
    expect((await h.deliveries(stranger)).find((d) => d.kind === "launch.slack_dm")).toMatchObject({ status: "failed", attempts: 1 });
  });

  test("an unknown Slack user fails permanently; a transient Slack error is retried", async () => {
    // A user of its own: the other tests' users stay as they are, whatever the order.
    const departed = await run(addUser(h.t.database, systemClock, { workspaceSlug: "acme", name: "Departed", email: "departed@acme.example", slackUserId: "UGONE" }));
    const gone = await launch(h.t.keys.live, departed.id);
    expect((await h.deliveries(gone)).find((d) => d.kind === "launch.slack_dm")).toMatchObject({ status: "failed", attempts: 1, detail: "Slack refused: user_not_found" });

    h.slack.failNext("chat.postMessage", "internal_error", 500);
    const flaky = await launch(h.t.keys.live, h.users.csm);
    await waitFor(async () => (await h.deliveries(flaky)).find((d) => d.kind === "launch.slack_dm")?.status === "sent", "the retried DM", 20_000);
    expect((await h.deliveries(flaky)).find((d) => d.kind === "launch.slack_dm")).toMatchObject({ status: "sent", attempts: 2 });
  });

  test("a job that runs again writes nothing twice and sends nothing twice", async () => {
    const id = await launch(h.t.keys.live, h.users.csm);
    const sentBefore = h.slack.messages.length;
    const rows = await h.query<{ id: number | string }>("SELECT id FROM outbox WHERE payload LIKE ?", `%${id}%`);
    // Forget the finished jobs in Redis and relay the same rows again: the same job ids run a second time.
    for (const queue of Object.values(h.t.queues)) await queue.clean(0, 10_000, "completed");
    await h.query(`UPDATE outbox SET relayed_at = NULL WHERE id IN (${rows.map((r) => Number(r.id)).join(",")})`);
    await h.t.relay.kick();
    await waitFor(() => h.settled(), "the second run");
    expect(h.slack.messages.length).toBe(sentBefore);
    expect(await h.count("phase_transitions", "onboarding_id = ?", id)).toBe(1);
    expect(await h.count("calendar_entries", "onboarding_id = ?", id)).toBe(1);
    expect(await h.count("email_drafts", "onboarding_id = ?", id)).toBe(1);
    expect((await h.deliveries(id)).every((d) => d.attempts === 1)).toBe(true);
  });

  test("every authenticated call leaves an activity entry", async () => {
    const response = await h.t.call("GET", "/api/v1/me");
    const requestId = response.headers.get("request-id")!;
    await waitFor(async () => (await entriesOf(h, requestId)) === 1, "the activity entry");
    const stored = await storedActivity(h, (e) => e.request_id === requestId);
    expect(stored.map(({ actor, method, route, status }) => ({ actor, method, route, status }))).toEqual([
      { actor: "crm-sync", method: "GET", route: "/api/v1/me", status: 200 },
    ]);
  });
});
