import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { OnboardingClient, type ClientOptions } from "../../../client";
import { systemClock } from "../../../shared/clock.ts";
import { run } from "../../../shared/db/flow.ts";
import { createApiKey } from "../../../shared/workspaces.ts";
import { startApiProcess, waitUntilUp, type ApiProcess } from "../../support/api-process.ts";
import { exitWithin, startProcess } from "../../support/processes.ts";
import { testRedisUrl } from "../../support/test-app.ts";

/** The SECRET_KEY startApiProcess gives the API; a worker must use the same one to unseal webhook secrets. */
const API_SECRET_KEY = "s".repeat(40);

/** Webhook receivers in the tests listen on loopback over plain HTTP. */
export const LOOPBACK_WEBHOOKS = { WEBHOOK_ALLOW_HTTP: "true", WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" };

/** A client of `api` (or of another address, such as a proxy in front of it), with its paid live key unless told otherwise. */
export function clientOf(api: ApiProcess, options: Partial<ClientOptions> = {}): OnboardingClient {
  return new OnboardingClient({ apiKey: api.key, baseUrl: api.base, ...options });
}

/** Another key of the API's workspace `acme`, made the way the operator makes one. */
export async function extraKey(api: ApiProcess, input: { name: string; mode?: "live" | "test"; tier?: "default" | "paid" }) {
  const made = await run(createApiKey(api.database.database, systemClock, { workspaceSlug: "acme", name: input.name, mode: input.mode ?? "live", tier: input.tier ?? "paid" }));
  return { key: made.key, id: made.row.id };
}

/** The real worker entry point beside `api`: same database, Redis, queue prefix and secret key. */
export function startWorkerBeside(api: ApiProcess, env: Record<string, string> = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), "client-worker-"));
  const child: Subprocess = startProcess("worker/main.ts", {
    DATABASE_URL: api.databaseUrl,
    REDIS_URL: testRedisUrl(),
    QUEUE_PREFIX: api.prefix,
    SECRET_KEY: API_SECRET_KEY,
    DATA_DIR: dataDir,
    REMINDER_SCAN_SECONDS: "3600",
    ...env,
  });
  return {
    child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        await exitWithin(child, 10_000).catch(() => {});
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Another API process on `api`'s database, queues and port: the same service back at the same
 * address after `api`'s process ended. (startApiProcess always picks a port of its own.)
 */
export async function restartOnSamePort(api: ApiProcess) {
  const child = startProcess("api/main.ts", {
    PORT: String(api.port),
    DATABASE_URL: api.databaseUrl,
    REDIS_URL: testRedisUrl(),
    QUEUE_PREFIX: api.prefix,
    ADMIN_TOKEN: "admin-token-0123456789abcdef",
    SECRET_KEY: API_SECRET_KEY,
  });
  const restarted = {
    child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        await exitWithin(child, 10_000).catch(() => {});
      }
    },
  };
  try {
    await waitUntilUp(api.base, child);
  } catch (error) {
    await restarted.stop();
    throw error;
  }
  return restarted;
}

export { startApiProcess, type ApiProcess };
