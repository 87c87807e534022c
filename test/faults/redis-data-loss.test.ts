import { afterEach, describe, expect, test } from "bun:test";
import { Redis } from "ioredis";
import { startPrivateRedis, type PrivateRedis } from "../../scripts/private-redis.ts";
import { createSideEffectsHarness, waitFor, type SideEffectsHarness } from "../support/side-effects-harness.ts";

/**
 * Redis holds work, not truth. A Redis that restarts without its data (no persistence, a
 * failover to an empty replica, an eviction) after the relay handed it jobs must not lose
 * a single effect, nor double one: the outbox reconciler hands the lost jobs over again.
 */
let h: SideEffectsHarness | undefined;
const redisServers: PrivateRedis[] = [];
afterEach(async () => {
  // The harness was opened after the first Redis: it closes first.
  await h?.close();
  h = undefined;
  for (const server of redisServers.splice(0).reverse()) await server.stop().catch(() => {});
});

const count = (harness: SideEffectsHarness, table: string, onboardingId: string) => harness.count(table, "onboarding_id = ?", onboardingId);

describe("Redis restarted without its data", () => {
  test(
    "100 launches handed to Redis, Redis killed and started empty: every effect happens exactly once, and the reminder scheduler comes back",
    async () => {
      const redis = await startPrivateRedis();
      redisServers.push(redis);
      h = await createSideEffectsHarness({ redisUrl: redis.url, outboxReconcileAfterMs: 1000, reminderScanSeconds: 3600 });
      const scheduler = () => h!.t.queues.records.getJobScheduler("reminders-scan").catch(() => undefined);
      expect(await scheduler()).toBeTruthy();
      // The worker is paused, so the jobs stay in Redis, handed over but not run.
      await Promise.all(h.worker!.workers.map((w) => w.pause()));

      const customer = (await h.t.call("POST", "/api/v1/customers", { body: { name: "Initech" } })).body;
      const ids: string[] = [];
      for (let i = 0; i < 100; i++) {
        const onboarding = (await h.t.call("POST", "/api/v1/onboardings", { body: { customer_id: customer.id, csm_id: h.users.csm } })).body;
        expect((await h.t.call("PATCH", `/api/v1/onboardings/${onboarding.id}`, { body: { phase: "launch" } })).status).toBe(200);
        ids.push(onboarding.id);
      }
      await waitFor(async () => (await h!.count("outbox", "relayed_at IS NULL")) === 0, "every row relayed");
      expect((await h.t.queues.outbound.getJobCounts("waiting")).waiting).toBe(200); // a DM and a calendar entry each

      process.kill(redis.pid, "SIGKILL");
      const empty = await startPrivateRedis({ port: redis.port });
      redisServers.push(empty);
      // The work is gone from Redis. Writes are held while it is counted (with plain reads:
      // BullMQ's count script counts as a write): the reconciler runs every ~330 ms here and
      // could already be handing the lost jobs over again, which this test waits for next.
      const holder = new Redis(empty.url);
      await holder.call("CLIENT", "PAUSE", "10000", "WRITE");
      try {
        const keys = h.t.queues.outbound.keys;
        const afterRestart = { waiting: (await holder.llen(keys.wait!)) + (await holder.zcard(keys.prioritized!)) };
        expect(afterRestart.waiting).toBe(0);
      } finally {
        await holder.call("CLIENT", "UNPAUSE");
        holder.disconnect();
      }
      await Promise.all(h.worker!.workers.map((w) => w.resume()));

      await waitFor(() => h!.settled(), "every outbox row done after Redis came back empty", 90_000);
      for (const id of ids) {
        expect({ id, dm: (await h.deliveries(id)).filter((d) => d.kind === "launch.slack_dm" && d.status === "sent").length }).toEqual({ id, dm: 1 });
        expect(await count(h, "calendar_entries", id)).toBe(1);
        expect(await count(h, "phase_transitions", id)).toBe(1);
      }
      expect(h.slack.messages.filter((m) => m.text.includes("Initech"))).toHaveLength(100);
      // The reminder scheduler was in the lost data too; the worker put it back by itself.
      await waitFor(scheduler, "the reminder scheduler re-created");
    },
    120_000,
  );
});
