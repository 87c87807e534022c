import { afterEach, describe, expect, test } from "bun:test";
import { startPrivateRedis } from "../../scripts/private-redis.ts";
import { exitWithin, startProcess } from "../support/processes.ts";
import { createSideEffectsHarness, waitFor, type SideEffectsHarness } from "../support/side-effects-harness.ts";
import { entriesOf } from "../support/activity.ts";

let h: SideEffectsHarness | undefined;
/** Everything a test opened, closed last-opened first, so nothing is closed under something still using it. */
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  h = undefined;
});

/** Creates the harness and puts its close on the cleanup stack. */
async function harness(options: Parameters<typeof createSideEffectsHarness>[0] = {}) {
  const created = await createSideEffectsHarness(options);
  cleanups.push(() => created.close());
  return created;
}

async function launchable(harness: SideEffectsHarness) {
  const customer = (await harness.t.call("POST", "/api/v1/customers", { body: { name: "Initech" } })).body;
  return async () => {
    const onboarding = (await harness.t.call("POST", "/api/v1/onboardings", { body: { customer_id: customer.id, csm_id: harness.users.csm } })).body;
    const patched = await harness.t.call("PATCH", `/api/v1/onboardings/${onboarding.id}`, { body: { phase: "launch" } });
    expect(patched.status).toBe(200);
    return onboarding.id as string;
  };
}

const workerEnv = (harness: SideEffectsHarness, extra: Record<string, string> = {}) => ({
  DATABASE_URL: harness.databaseUrl,
  REDIS_URL: harness.redisUrl,
  QUEUE_PREFIX: harness.prefix,
  SLACK_API_URL: harness.slack.url,
  SLACK_BOT_TOKEN: harness.slack.token,
  SMTP_URL: harness.smtp.url,
  ...extra,
});

/**
 * A launch whose DM reached Slack while the worker process posting it never heard back, and
 * was then killed with SIGKILL: the state a retry must not turn into a second DM.
 */
async function launchWithWorkerKilledMidDm(harness: SideEffectsHarness): Promise<string> {
  const launch = await launchable(harness);
  harness.slack.hangPosts();
  const child = startProcess("worker/main.ts", workerEnv(harness, { WORKER_LOCK_SECONDS: "1", REMINDER_SCAN_SECONDS: "3600" }));
  cleanups.push(() => child.kill("SIGKILL"));
  const posted = harness.slack.nextPost();
  const id = await launch();
  await posted; // Slack has the message; the worker is waiting for the answer
  child.kill("SIGKILL");
  await child.exited;
  harness.slack.releaseHangs();
  return id;
}

describe("crashes and outages", () => {
  test("a worker killed with SIGKILL mid-DM, then 450 other messages in that conversation: the retry still finds its DM, which is sent once", async () => {
    h = await harness({ startWorker: false, lockDurationMs: 1000 });
    const id = await launchWithWorkerKilledMidDm(h);
    // More than two pages of history arrive before the retry: the earlier DM is far from the newest 100.
    h.slack.chatter("DUCSM1", 450);

    const rescuer = h.startWorker();
    cleanups.push(() => rescuer.close(2000));
    await waitFor(async () => (await h!.deliveries(id)).find((d) => d.kind === "launch.slack_dm")?.status === "sent", "the rescued DM", 20_000);
    expect(h.slack.messages.filter((m) => m.text.includes("Initech"))).toHaveLength(1);
    expect((await h.deliveries(id)).find((d) => d.kind === "launch.slack_dm")).toMatchObject({ attempts: 2, detail: "posted by an earlier attempt" });
    expect(h.slack.historyPages()).toBeGreaterThan(1); // it followed Slack's cursor
  });

  test("when Slack's history cannot be read, a retry that may follow a post says so and does not post again", async () => {
    h = await harness({ startWorker: false, lockDurationMs: 1000 });
    const id = await launchWithWorkerKilledMidDm(h);
    h.slack.failNext("conversations.history", "missing_scope");

    const rescuer = h.startWorker();
    cleanups.push(() => rescuer.close(2000));
    const dm = await waitFor(async () => (await h!.deliveries(id)).find((d) => d.kind === "launch.slack_dm" && d.status !== "sending"), "the DM's outcome", 20_000);
    expect(dm).toMatchObject({ status: "uncertain", attempts: 2 });
    expect(dm!.detail).toContain("missing_scope");
    expect(h.slack.messages.filter((m) => m.text.includes("Initech"))).toHaveLength(1);
  });

  test("a DM that failed before reaching Slack is retried without a history search", async () => {
    h = await harness();
    const launch = await launchable(h);
    h.slack.failNext("conversations.open", "ratelimited", 429);
    const id = await launch();
    await waitFor(async () => (await h!.deliveries(id)).find((d) => d.kind === "launch.slack_dm")?.status === "sent", "the retried DM", 20_000);
    expect((await h.deliveries(id)).find((d) => d.kind === "launch.slack_dm")).toMatchObject({ attempts: 2, detail: "direct message posted" });
    expect(h.slack.historyPages()).toBe(0);
  });

  test("Redis stopped while phase changes are made, then started: every record and automation arrives once", async () => {
    const redis = await startPrivateRedis();
    let restarted: Awaited<ReturnType<typeof startPrivateRedis>> | undefined;
    cleanups.push(async () => {
      await restarted?.stop();
      await redis.stop().catch(() => {});
    });
    h = await harness({ redisUrl: redis.url });
    const launch = await launchable(h);
    const before = await launch();
    await waitFor(() => h!.settled(), "the first launch");

    await redis.stop();
    const during = [await launch(), await launch()];
    const me = await h.t.call("GET", "/api/v1/me"); // served without Redis
    expect(me.status).toBe(200);
    // The launches' rows wait in the outbox, and the relay waits for Redis instead of spinning.
    const waiting = await h.count("outbox", "relayed_at IS NULL AND name = 'launch.slack_dm'");
    expect(waiting).toBe(2);
    await waitFor(() => h!.t.relay.waitingForRedis(), "the relay backing off");

    restarted = await startPrivateRedis({ port: redis.port });
    await waitFor(() => h!.settled(), "delivery after Redis returns", 30_000);
    await waitFor(
      async () => (await Promise.all(during.map((id) => h!.deliveries(id)))).every((rows) => rows.filter((d) => d.status === "sent").length === 2),
      "the automations made during the outage",
      30_000,
    );

    for (const id of [before, ...during]) {
      expect(await h.count("phase_transitions", "onboarding_id = ?", id)).toBe(1);
      expect(await h.count("calendar_entries", "onboarding_id = ?", id)).toBe(1);
    }
    expect(h.slack.messages.filter((m) => m.text.includes("Initech"))).toHaveLength(3);
    const requestId = me.headers.get("request-id")!;
    await waitFor(async () => (await entriesOf(h!, requestId)) === 1, "the outage's activity entry");
  });

  test("SIGTERM lets the worker finish its active job before it exits", async () => {
    h = await harness({ startWorker: false });
    const launch = await launchable(h);
    h.slack.delayPosts(1500);
    const child = startProcess("worker/main.ts", workerEnv(h, { REMINDER_SCAN_SECONDS: "3600" }));
    cleanups.push(() => child.kill("SIGKILL"));
    const posted = h.slack.nextPost();
    const id = await launch();
    await posted;
    child.kill("SIGTERM");
    expect(await exitWithin(child, 10_000)).toBe(0);
    expect((await h.deliveries(id)).find((d) => d.kind === "launch.slack_dm")).toMatchObject({ status: "sent", attempts: 1 });
  });
});
