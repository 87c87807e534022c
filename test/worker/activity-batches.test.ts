import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Redis } from "ioredis";
import { run } from "../../shared/db/flow.ts";
import { prunedCountKey } from "../../shared/retention.ts";
import type { ActivityEntry } from "../../shared/jobs/catalog.ts";
import { createSideEffectsHarness, waitFor, type SideEffectsHarness } from "../support/side-effects-harness.ts";
import { entriesOf } from "../support/activity.ts";

/**
 * Activity batches are what earlier APIs wrote: an outbox row holding the entries (the job
 * carries only the row's id) or, earlier still, a job carrying them. This API writes entries
 * straight into their table; the worker still records both kinds, so APIs of the previous
 * release lose nothing while a rolling upgrade runs them beside this release's workers.
 */
let h: SideEffectsHarness;
beforeAll(async () => {
  h = await createSideEffectsHarness();
});
afterAll(() => h.close());

const entry = (requestId: string): ActivityEntry => ({
  request_id: requestId,
  org_id: "org_elsewhere",
  key_id: "key_elsewhere",
  actor: "key:elsewhere",
  method: "GET",
  route: "/api/v1/me",
  status: 200,
  address: null,
  duration_ms: 0.4,
  at: 1_700_000_000_000_000,
});
/** Stored once, as a row (a batch's entry, written by the worker) or in a page (this API's read calls'). */
const recorded = async (requestId: string) => (await entriesOf(h, requestId)) === 1;

describe("activity batches", () => {
  test("a batch an earlier API left in an outbox row reaches Redis without its entries, and the worker records them from the row", async () => {
    const { outbox } = h.t.services;
    await run(h.t.database.transaction(() => outbox.add(null, "records", "activity.batch", { entries: [entry("req_in_row_1"), entry("req_in_row_2")] }, 1)));
    await waitFor(async () => (await recorded("req_in_row_1")) && (await recorded("req_in_row_2")), "the row's entries to be recorded");
    const [row] = await h.query<{ id: number | string }>("SELECT id FROM outbox WHERE name = 'activity.batch'");
    const job = await h.t.queues.records.getJob(`outbox-${row!.id}`);
    expect({ name: job?.name, data: job?.data }).toEqual({ name: "activity.batch", data: {} });
    await waitFor(async () => (await h.count("outbox", "id = ? AND completed_at IS NOT NULL", Number(row!.id))) === 1, "the row's outcome");
  });

  test("this API writes read calls' entries itself, in pages: no batch reaches the outbox", async () => {
    const reads = [await h.t.call("GET", "/api/v1/me"), await h.t.call("GET", "/api/v1/customers")];
    expect(reads.map((r) => r.status)).toEqual([200, 200]);
    await h.t.activity.drain();
    for (const r of reads) expect(await recorded(r.headers.get("request-id")!)).toBe(true);
    expect(await h.count("outbox", "payload LIKE ?", `%${reads[0]!.headers.get("request-id")}%`)).toBe(0);
  });

  test("a batch queued with its entries, as an earlier version did, is recorded from the job", async () => {
    await h.t.queues.records.add("activity.batch", { entries: [entry("req_carried_1"), entry("req_carried_2")] }, { jobId: "carried-batch-1" });
    await waitFor(async () => (await recorded("req_carried_1")) && (await recorded("req_carried_2")), "the carried entries");
  });

  test("a batch whose job names another job's outbox row fails at once, without retries", async () => {
    const customer = (await h.t.call("POST", "/api/v1/customers", { body: { name: "Rows" } })).body;
    const onboarding = (await h.t.call("POST", "/api/v1/onboardings", { body: { customer_id: customer.id } })).body;
    expect((await h.t.call("PATCH", `/api/v1/onboardings/${onboarding.id}`, { body: { phase: "launch" } })).status).toBe(200);
    // A launch's outbound row: its id is free on the records queue, and it holds no activity batch.
    const [other] = await h.query<{ id: number | string }>("SELECT id FROM outbox WHERE queue = 'outbound' ORDER BY id DESC LIMIT 1");
    const job = await h.t.queues.records.add("activity.batch", {}, { jobId: `outbox-${other!.id}` });
    await waitFor(async () => (await job.getState()) === "failed", "the job to fail");
    const failed = (await h.t.queues.records.getJob(job.id!))!;
    expect({ attempts: failed.attemptsMade, reason: failed.failedReason }).toEqual({
      attempts: 1,
      reason: `no payload for activity.batch job outbox-${other!.id}: it carries none and no outbox row holds it`,
    });
  });

  test("a batch whose outbox row is gone fails at once, without retries, naming the job", async () => {
    const job = await h.t.queues.records.add("activity.batch", {}, { jobId: "outbox-987654321" });
    await waitFor(async () => (await job.getState()) === "failed", "the job to fail");
    const failed = (await h.t.queues.records.getJob(job.id!))!;
    expect(failed.attemptsMade).toBe(1);
    expect(failed.failedReason).toBe("no payload for activity.batch job outbox-987654321: it carries none and no outbox row holds it");
  });

  test("the scheduled retention.prune job deletes expired entries (the lifetimes' defaults: 90 days for activity)", async () => {
    await h.query(
      "INSERT INTO activity_entries (request_id, org_id, key_id, actor, method, route, status, address, duration_ms, at) VALUES ('req_expired', 'org_x', 'key_x', 'x', 'GET', '/x', 200, NULL, 1, 1000000)",
    );
    await h.t.queues.records.add("retention.prune", {});
    await waitFor(async () => !(await recorded("req_expired")), "the expired entry to be pruned");
    // Counted beside the queues, for the API's /metrics (retention_pruned_rows).
    const redis = new Redis(h.redisUrl);
    try {
      await waitFor(async () => Number(await redis.hget(prunedCountKey(h.prefix), "activity_entries")) >= 1, "the count of rows pruned");
    } finally {
      redis.disconnect();
    }
  });
});
