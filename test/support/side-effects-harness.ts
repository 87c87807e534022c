import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { systemClock, type Clock } from "../../shared/clock.ts";
import { run } from "../../shared/db/flow.ts";
import { silentLogger } from "../../shared/logger.ts";
import { addUser } from "../../shared/workspaces.ts";
import { createMailer } from "../../worker/mailer.ts";
import { createWorker } from "../../worker/worker.ts";
import type { WebhookSettings } from "../../worker/webhooks/deliver.ts";
import { startSlackStandIn } from "./slack-stand-in.ts";
import { startSmtpSink } from "./smtp-sink.ts";
import { waitFor } from "./wait.ts";
import { createTestApp, TEST_SECRET_KEY, testRedisUrl, uniquePrefix, type TestApp } from "./test-app.ts";

export { waitFor };

/** Opens the harness app's /metrics and /admin/queues. */
export const HARNESS_ADMIN_TOKEN = "harness-admin-token-0123456789";

export interface HarnessOptions {
  clock?: Clock;
  redisUrl?: string;
  lockDurationMs?: number;
  startWorker?: boolean;
  /** Passed to the app: how soon a relayed row without an outcome is checked against Redis. */
  outboxReconcileAfterMs?: number;
  /** Seconds between reminder scans of the in-process worker; null (default) runs no scheduler. */
  reminderScanSeconds?: number | null;
  /** Webhook rules for the API and the worker, and the worker's retry pauses and timeout. */
  webhooks?: Omit<WebhookSettings, "secretKey">;
}

/**
 * The API app and an in-process worker over one database (SQLite file or PostgreSQL database,
 * as `TEST_ENGINE` says) and one Redis key prefix, with a loopback Slack stand-in and a real
 * SMTP sink: every outbound effect is observable.
 */
export async function createSideEffectsHarness(options: HarnessOptions = {}) {
  const clock = options.clock ?? systemClock;
  const redisUrl = options.redisUrl ?? testRedisUrl();
  const prefix = uniquePrefix("fx");
  const slack = await startSlackStandIn({ users: ["UCSM1"] });
  const smtp = await startSmtpSink();
  const mailDir = mkdtempSync(join(tmpdir(), "onboarding-mail-"));
  const apiRedis = new Redis(redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
  apiRedis.on("error", () => {});
  await new Promise((resolve) => apiRedis.once("ready", resolve));
  const t = await createTestApp({ clock, redisPrefix: prefix, redis: apiRedis, app: { outboxReconcileAfterMs: options.outboxReconcileAfterMs, webhookRules: options.webhooks?.rules, adminToken: HARNESS_ADMIN_TOKEN } });
  const csm = await run(addUser(t.database, systemClock, { workspaceSlug: "acme", name: "Casey CSM", email: "casey@acme.example", slackUserId: "UCSM1" }));
  const noSlack = await run(addUser(t.database, systemClock, { workspaceSlug: "acme", name: "Sam NoSlack", email: "sam@acme.example" }));
  const { databaseUrl } = t;

  const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  connection.on("error", () => {});
  const startWorker = () =>
    createWorker({
      database: t.database,
      connection,
      prefix,
      clock,
      logger: silentLogger,
      slack: { apiUrl: slack.url, fallbackToken: slack.token, secretKey: null },
      mailer: createMailer({ smtpUrl: smtp.url, dataDir: mailDir }),
      mailFrom: "Onboarding <onboarding@test.example>",
      concurrency: { records: 2, outbound: 2, webhooks: 4 },
      webhooks: options.webhooks && { ...options.webhooks, secretKey: TEST_SECRET_KEY },
      reminderScanSeconds: options.reminderScanSeconds ?? null,
      lockDurationMs: options.lockDurationMs,
    });
  const worker = options.startWorker === false ? null : startWorker();
  await worker?.ready();

  /** One statement on either engine (`?` placeholders); PostgreSQL answers bigint columns as strings. */
  const query = <R>(sql: string, ...params: (string | number | boolean | null)[]) => t.query<R>(sql, ...params);

  return {
    t,
    clock,
    prefix,
    redisUrl,
    /** What a worker process started by the test sets as `DATABASE_URL`. */
    databaseUrl,
    slack,
    smtp,
    worker,
    startWorker,
    connection,
    users: { csm: csm.id, noSlack: noSlack.id },
    query,
    count: t.count,
    deliveries: (onboardingId: string) =>
      query<{ kind: string; status: string; detail: string; attempts: number; target: string | null }>(
        "SELECT kind, status, detail, attempts, target FROM deliveries WHERE onboarding_id = ? ORDER BY kind",
        onboardingId,
      ),
    /** Every outbox row's effect recorded as done, and every job of both queues finished. */
    settled: async () => {
      const unfinished = await t.count("outbox", "completed_at IS NULL");
      if (unfinished > 0) return false;
      for (const queue of Object.values(t.queues)) {
        const counts = await queue.getJobCounts("waiting", "active", "delayed", "prioritized", "waiting-children");
        counts.delayed! -= await queue.getJobSchedulersCount(); // a scheduler's next run waits as a delayed job
        if (Object.values(counts).some((n) => n > 0)) return false;
      }
      return true;
    },
    /** In reverse order of creation: nothing is closed while something opened after it still uses it. */
    async close() {
      await worker?.close(2000);
      connection.disconnect();
      await t.close();
      apiRedis.disconnect();
      rmSync(mailDir, { recursive: true, force: true });
      await smtp.stop();
      slack.stop();
    },
  };
}

export type SideEffectsHarness = Awaited<ReturnType<typeof createSideEffectsHarness>>;
