import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { listTimeline } from "../../admin/reports.ts";
import { freePort } from "../../scripts/private-redis.ts";
import { run } from "../../shared/db/flow.ts";
import { startApiProcess, waitUntilUp, type ApiProcess } from "../support/api-process.ts";
import { exitWithin, startProcess } from "../support/processes.ts";
import { testRedisUrl } from "../support/test-app.ts";
import { waitFor } from "../support/wait.ts";
import { entriesOf } from "../support/activity.ts";

/**
 * A rolling upgrade runs this release's processes beside the previous release's, in either
 * order, on one database (migrated by this release) and one Redis: no job refused, no record
 * lost. The previous release is taken from git: the commit before activity entries stopped
 * going through the outbox. Runs on the suite's engine (both, under `npm test`).
 */
const PREVIOUS_RELEASE = "6be0dbf";
const repo = resolve(import.meta.dir, "../..");
const previous = mkdtempSync(join(tmpdir(), "previous-release-"));
const children: ReturnType<typeof Bun.spawn>[] = [];

beforeAll(() => {
  // The previous release's files, with this checkout's installed packages (the same ones).
  const archive = Bun.spawnSync(["git", "-C", repo, "archive", "--format=tar", PREVIOUS_RELEASE], { stdout: "pipe", stderr: "pipe" });
  if (archive.exitCode !== 0) throw new Error(`git archive ${PREVIOUS_RELEASE} failed (a shallow clone?): ${archive.stderr.toString()}`);
  const untar = Bun.spawnSync(["tar", "-x", "-C", previous], { stdin: archive.stdout, stderr: "pipe" });
  if (untar.exitCode !== 0) throw new Error(`tar failed: ${untar.stderr.toString()}`);
  symlinkSync(join(repo, "node_modules"), join(previous, "node_modules"));
});
afterAll(async () => {
  for (const child of children.reverse()) {
    child.kill("SIGTERM");
    await exitWithin(child as never, 15_000).catch(() => {});
  }
  rmSync(previous, { recursive: true, force: true });
});

/** A process of the previous release: its entry point, run from its own files. */
function previousProcess(entry: "api/main.ts" | "worker/main.ts", env: Record<string, string>) {
  const child = Bun.spawn([process.execPath, entry], { cwd: previous, env: { ...process.env, LOG_LEVEL: "warn", ...env }, stdin: "ignore", stdout: "ignore", stderr: "inherit" });
  children.push(child);
  return child;
}

const workerEnv = (api: ApiProcess) => ({ DATABASE_URL: api.databaseUrl, REDIS_URL: testRedisUrl(), QUEUE_PREFIX: api.prefix, DATA_DIR: previous, REMINDER_SCAN_SECONDS: "3600" });

/** The phase changes a customer's timeline shows for an onboarding (`npm run admin -- timeline list`). */
async function timelineOf(api: ApiProcess, onboarding: string): Promise<string[][]> {
  const customer = (await api.query<{ customer_id: string }>("SELECT customer_id FROM onboardings WHERE id = ?", onboarding))[0]!.customer_id;
  return (await run(listTimeline(api.database.database, "acme", customer))).map((entry) => [entry.onboarding_id, entry.from, entry.to]);
}

async function launchOne(base: string, headers: Record<string, string>): Promise<string> {
  const customer = (await (await fetch(`${base}/api/v1/customers`, { method: "POST", headers, body: JSON.stringify({ name: "Rolling Co" }) })).json()) as { id: string };
  const onboarding = (await (await fetch(`${base}/api/v1/onboardings`, { method: "POST", headers, body: JSON.stringify({ customer_id: customer.id }) })).json()) as { id: string };
  const patched = await fetch(`${base}/api/v1/onboardings/${onboarding.id}`, { method: "PATCH", headers, body: JSON.stringify({ phase: "review" }) });
  expect(patched.status).toBe(200);
  return onboarding.id;
}

/** Jobs that failed on either queue: a job the other release's worker refused would be one. */
async function failedJobs(prefix: string): Promise<number> {
  const connection = new Redis(testRedisUrl(), { maxRetriesPerRequest: 1 });
  try {
    let failed = 0;
    for (const name of ["records", "outbound"]) {
      const queue = new Queue(name, { connection, prefix });
      failed += (await queue.getJobCounts("failed")).failed ?? 0;
      await queue.close();
    }
    return failed;
  } finally {
    connection.disconnect();
  }
}

async function reads(base: string, headers: Record<string, string>): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) ids.push((await fetch(`${base}/api/v1/me`, { headers })).headers.get("request-id")!);
  return ids;
}

describe("a rolling upgrade beside the previous release", () => {
  test("this release's API with the previous release's worker: every record written, no job refused", async () => {
    const api = await startApiProcess();
    try {
      previousProcess("worker/main.ts", workerEnv(api));
      const onboarding = await launchOne(api.base, api.headers);
      const readIds = await reads(api.base, api.headers);
      await waitFor(async () => (await api.count("phase_transitions", "onboarding_id = ?", onboarding)) === 1, "the old worker to record the transition", 20_000);
      await waitFor(async () => (await api.count("outbox", "completed_at IS NULL")) === 0, "every outbox row's outcome recorded", 20_000);
      // This API's timeline entry is the transition it wrote in the change's transaction: nothing for the old worker to add.
      expect(await api.count("timeline_events", "onboarding_id = ?", onboarding)).toBe(0);
      expect(await timelineOf(api, onboarding)).toEqual([[onboarding, "before_getting_started", "review"]]);
      await waitFor(async () => {
        for (const id of readIds) if ((await entriesOf(api, id)) !== 1) return false;
        return true;
      }, "the reads' activity entries", 10_000);
      expect(await failedJobs(api.prefix)).toBe(0);
    } finally {
      await api.stop();
    }
  });

  test("the previous release's API with this release's worker: its activity batches, phase changes and timeline events recorded", async () => {
    // The database is this release's (migrated by it first), as after any process of it started.
    const owner = await startApiProcess();
    try {
      owner.child.kill("SIGTERM");
      await exitWithin(owner.child, 10_000);
      const port = await freePort();
      const old = previousProcess("api/main.ts", { ...workerEnv(owner), PORT: String(port), ADMIN_TOKEN: "admin-token-0123456789abcdef", SECRET_KEY: "s".repeat(40) });
      const base = `http://127.0.0.1:${port}`;
      await waitUntilUp(base, old as never);
      children.push(startProcess("worker/main.ts", workerEnv(owner)));
      const onboarding = await launchOne(base, owner.headers);
      const readIds = await reads(base, owner.headers);
      await waitFor(async () => (await owner.count("phase_transitions", "onboarding_id = ?", onboarding)) === 1, "this worker to record the transition", 20_000);
      // The previous API queued the timeline event as a job: this worker writes it, once.
      await waitFor(async () => (await owner.count("timeline_events", "onboarding_id = ?", onboarding)) === 1, "this worker to write the old API's timeline event", 20_000);
      // Both tables hold that change, each from its own job: the timeline shows it once.
      expect(await timelineOf(owner, onboarding)).toEqual([[onboarding, "before_getting_started", "review"]]);
      // The previous API queued read calls' entries as activity batches in outbox rows: recorded from them.
      await waitFor(async () => {
        for (const id of readIds) if ((await entriesOf(owner, id)) !== 1) return false;
        return true;
      }, "the old API's batched entries", 20_000);
      await waitFor(async () => (await owner.count("outbox", "completed_at IS NULL")) === 0, "every outbox row's outcome recorded", 20_000);
      expect(await failedJobs(owner.prefix)).toBe(0);
    } finally {
      await owner.stop();
    }
  });
});
