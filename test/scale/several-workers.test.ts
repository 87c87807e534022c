import { afterAll, describe, expect, test } from "bun:test";
import { exitWithin, startProcess } from "../support/processes.ts";
import { createSideEffectsHarness, waitFor, type SideEffectsHarness } from "../support/side-effects-harness.ts";

/**
 * Two real worker processes (`worker/main.ts`) on one database and one Redis, one of them
 * killed with SIGKILL while launches are being carried out: every launch's DM and calendar
 * entry still happens exactly once. Runs on the suite's engine (both, under `npm test`).
 */
let h: SideEffectsHarness;
const children: ReturnType<typeof startProcess>[] = [];
afterAll(async () => {
  for (const child of children) {
    child.kill("SIGTERM");
    await exitWithin(child, 15_000).catch(() => {});
  }
  await h?.close();
});

describe("two worker processes", () => {
  test("30 launches while one of two workers is killed with SIGKILL: each DM and calendar entry exactly once", async () => {
    h = await createSideEffectsHarness({ startWorker: false });
    const env = {
      DATABASE_URL: h.databaseUrl,
      REDIS_URL: h.redisUrl,
      QUEUE_PREFIX: h.prefix,
      SLACK_API_URL: h.slack.url,
      SLACK_BOT_TOKEN: h.slack.token,
      SMTP_URL: h.smtp.url,
      WORKER_LOCK_SECONDS: "1",
      REMINDER_SCAN_SECONDS: "3600",
    };
    for (let i = 0; i < 2; i++) children.push(startProcess("worker/main.ts", env));

    const customer = (await h.t.call("POST", "/api/v1/customers", { body: { name: "Globodyne" } })).body;
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) {
      const onboarding = (await h.t.call("POST", "/api/v1/onboardings", { body: { customer_id: customer.id, csm_id: h.users.csm } })).body;
      expect((await h.t.call("PATCH", `/api/v1/onboardings/${onboarding.id}`, { body: { phase: "launch" } })).status).toBe(200);
      ids.push(onboarding.id);
      if (i === 10) {
        // Mid-way, whatever the first worker holds is abandoned; its locks expire after 1 s.
        children[0]!.kill("SIGKILL");
        await children[0]!.exited;
      }
    }

    await waitFor(async () => (await h.count("deliveries", "kind = 'launch.slack_dm' AND status = 'sent'")) === 30, "30 DMs sent", 60_000);
    await waitFor(async () => (await h.count("calendar_entries")) === 30, "30 calendar entries", 30_000);
    const dms = h.slack.messages.filter((m) => m.text.includes("Globodyne"));
    expect(dms).toHaveLength(30);
    expect(await h.count("deliveries", "kind = 'launch.slack_dm'")).toBe(30);
  });
});
