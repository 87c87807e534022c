import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createSideEffectsHarness, waitFor, type SideEffectsHarness } from "../support/side-effects-harness.ts";
import { ManualClock } from "../support/test-app.ts";

const clock = new ManualClock();
const DAY = 86_400;
let h: SideEffectsHarness;
let customerId: string;

beforeAll(async () => {
  h = await createSideEffectsHarness({ clock });
  customerId = (await h.t.call("POST", "/api/v1/customers", { body: { name: "Umbrella" } })).body.id;
  await h.t.call("POST", `/api/v1/customers/${customerId}/contacts`, { body: { name: "Alice", email: "alice@umbrella.example", is_primary: true } });
});
afterAll(() => h.close());

async function waitingOnboarding(body: Record<string, unknown>, key = h.t.keys.live) {
  const onboarding = (await h.t.call("POST", "/api/v1/onboardings", { key, body: { customer_id: customerId, csm_id: h.users.csm, ...body } })).body;
  await h.t.call("PATCH", `/api/v1/onboardings/${onboarding.id}`, { key, body: { state: "waiting", waiting_on_customer: true } });
  return onboarding.id as string;
}

async function scan() {
  const result = await h.worker!.scanReminders();
  await waitFor(() => h.settled(), "reminders to be delivered");
  return result.queued;
}

const reminders = async (id: string) => (await h.deliveries(id)).filter((d) => d.kind.startsWith("reminder."));

describe("reminders", () => {
  test("one e-mail and one Slack message per period of waiting, never for test-key records", async () => {
    const both = await waitingOnboarding({});
    const slackOnly = await waitingOnboarding({ reminder_email: false, reminder_frequency_days: 2 });
    const byTestKey = await waitingOnboarding({}, h.t.keys.test);

    expect(await scan()).toBe(0); // nothing is due before the first interval
    clock.advanceSeconds(DAY + 1);
    expect(await scan()).toBe(1); // `both`; `slackOnly` waits two days
    expect(h.smtp.received).toHaveLength(1);
    expect(h.smtp.received[0]!.to).toEqual(["alice@umbrella.example"]);
    expect(h.smtp.received[0]!.raw).toContain("Subject: Reminder: Umbrella onboarding is waiting on you");
    expect((await reminders(both)).map((d) => `${d.kind}:${d.status}`)).toEqual(["reminder.email:sent", "reminder.slack:sent"]);

    expect(await scan()).toBe(0); // the same period is never reminded twice
    expect(h.smtp.received).toHaveLength(1);

    clock.advanceSeconds(DAY);
    expect(await scan()).toBe(2); // period 2 of `both`, period 1 of `slackOnly`
    expect(h.smtp.received).toHaveLength(2);
    expect((await reminders(slackOnly)).map((d) => d.kind)).toEqual(["reminder.slack"]);
    expect(h.slack.messages.filter((m) => m.text.includes("waiting on the customer"))).toHaveLength(3);
    expect((await reminders(byTestKey))).toEqual([]);
  });

  test("an onboarding that stops waiting gets no further reminders", async () => {
    const id = await waitingOnboarding({ reminder_slack: false });
    clock.advanceSeconds(DAY + 1);
    await scan();
    expect((await reminders(id))).toHaveLength(1);
    await h.t.call("PATCH", `/api/v1/onboardings/${id}`, { body: { waiting_on_customer: false, state: "active" } });
    clock.advanceSeconds(5 * DAY);
    await scan();
    expect((await reminders(id))).toHaveLength(1);
  });

  test("without SMTP_URL reminder e-mails are written as .eml files", async () => {
    const { mkdtempSync, readdirSync, readFileSync, rmSync } = await import("node:fs");
    const { join } = await import("node:path");
    const { tmpdir } = await import("node:os");
    const { createMailer } = await import("../../worker/mailer.ts");
    const dir = mkdtempSync(join(tmpdir(), "eml-"));
    try {
      const mailer = createMailer({ smtpUrl: null, dataDir: dir });
      const detail = await mailer.send({ from: "a@x.example", to: "b@y.example", subject: "Hi", text: "Body", messageId: "<dlv_1@customer-onboarding>" });
      const files = readdirSync(join(dir, "mail"));
      expect(files).toEqual(["dlv_1@customer-onboarding.eml"]);
      expect(detail).toContain(files[0]!);
      expect(readFileSync(join(dir, "mail", files[0]!), "utf8")).toContain("Subject: Hi");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
