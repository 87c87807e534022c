import { afterEach, describe, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { startPrivateRedis, type PrivateRedis } from "../../scripts/private-redis.ts";
import { startProcess } from "../support/processes.ts";
import { createSideEffectsHarness, waitFor, type SideEffectsHarness } from "../support/side-effects-harness.ts";
import { TEST_SECRET_KEY } from "../support/test-app.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";

/**
 * Webhooks are delivered at least once whatever happens to the processes that carry them: a
 * worker killed with SIGKILL mid-send, a Redis that restarts without its data while deliveries
 * wait in it. Real processes (the worker's entry point), a private Redis, a loopback receiver,
 * on both engines.
 */
let h: SideEffectsHarness | undefined;
let receiver: WebhookReceiver | undefined;
const redisServers: PrivateRedis[] = [];
const cleanups: (() => void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) cleanup();
  await h?.close();
  h = undefined;
  receiver?.stop();
  for (const server of redisServers.splice(0).reverse()) await server.stop().catch(() => {});
});

const rules = { allowHttp: true, allowPrivateNetworks: true, dnsServers: null };

describe("webhook deliveries under faults", () => {
  test("a worker killed with SIGKILL mid-send: another worker delivers it again, with the same webhook-id, and the receiver's 2xx ends it", async () => {
    receiver = await startWebhookReceiver();
    h = await createSideEffectsHarness({ startWorker: false, webhooks: { rules } });
    const hook = (await h.t.call("POST", "/api/v1/webhook_endpoints", { body: { url: receiver.url("/killed"), enabled_events: ["customer.created"] } })).body;
    const env = {
      DATABASE_URL: h.databaseUrl,
      REDIS_URL: h.redisUrl,
      QUEUE_PREFIX: h.prefix,
      SECRET_KEY: TEST_SECRET_KEY,
      WEBHOOK_ALLOW_HTTP: "true",
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
      WORKER_LOCK_SECONDS: "1",
      REMINDER_SCAN_SECONDS: "3600",
    };
    receiver.answer("/killed", "hang"); // the first try reaches the receiver and never hears back
    const first = startProcess("worker/main.ts", env);
    cleanups.push(() => first.kill("SIGKILL"));
    await h.t.call("POST", "/api/v1/customers", { body: { name: "Killed Co" } });
    await waitFor(() => receiver!.received.length === 1, "the first try to arrive");
    first.kill("SIGKILL");
    await first.exited;

    const second = startProcess("worker/main.ts", env);
    cleanups.push(() => second.kill("SIGKILL"));
    await waitFor(() => receiver!.received.length === 2, "the delivery again, from the second worker", 20_000);
    const [tried, again] = receiver.received;
    expect(again!.headers["webhook-id"]).toBe(tried!.headers["webhook-id"]);
    expect(again!.body).toBe(tried!.body);
    new Webhook(hook.secret).verify(again!.body, again!.headers);
    await waitFor(async () => (await h!.count("webhook_attempts", "endpoint_id = ? AND status_code = 200", hook.id)) === 1, "the 2xx recorded");
    await waitFor(() => h!.settled(), "the queues to settle", 20_000);
    expect(receiver.received.length).toBe(2);
  });

  test("Redis restarted empty with 30 deliveries waiting in it: every event is delivered, each once", async () => {
    receiver = await startWebhookReceiver();
    const redis = await startPrivateRedis();
    redisServers.push(redis);
    h = await createSideEffectsHarness({ redisUrl: redis.url, outboxReconcileAfterMs: 1000, webhooks: { rules } });
    const hook = (await h.t.call("POST", "/api/v1/webhook_endpoints", { body: { url: receiver.url("/lost"), enabled_events: ["customer.created"] } })).body;
    // The worker is paused, so the deliveries stay in Redis, handed over but not run.
    await Promise.all(h.worker!.workers.map((w) => w.pause()));
    const names = Array.from({ length: 30 }, (_, i) => `Lost ${i}`);
    for (const name of names) expect((await h.t.call("POST", "/api/v1/customers", { body: { name } })).status).toBe(201);
    await waitFor(async () => (await h!.count("outbox", "queue = 'webhooks' AND relayed_at IS NULL")) === 0, "every delivery handed to Redis");
    expect((await h.t.queues.webhooks.getJobCounts("waiting")).waiting).toBe(30);

    process.kill(redis.pid, "SIGKILL");
    redisServers.push(await startPrivateRedis({ port: redis.port }));
    await Promise.all(h.worker!.workers.map((w) => w.resume()));
    await waitFor(() => new Set(receiver!.received.map((r) => r.headers["webhook-id"])).size === 30, "all 30 delivered after the restart", 30_000);
    await waitFor(() => h!.settled(), "the queues to settle", 20_000);
    expect(receiver.received.map((r) => (new Webhook(hook.secret).verify(r.body, r.headers) as { data: { object: { name: string } } }).data.object.name).sort()).toEqual([...names].sort());
  });
});
