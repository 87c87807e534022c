import { afterEach, describe, expect, test } from "bun:test";
import { storedRequestIds } from "../support/activity.ts";
import { startApiProcess, type ApiProcess } from "../support/api-process.ts";

/**
 * kill -9 of the API under writes, on either engine (npm test runs it on SQLite and on
 * PostgreSQL): every change that committed has its activity entry, because the entry is written
 * in the change's own transaction, with an `Idempotency-Key` or without. Whether a change wrote
 * is counted by the stores themselves: a keyed create's claim is not mistaken for its change.
 * (Entries of read calls are batched in memory for at most 50 ms; those may be lost, as the
 * README says.)
 */
let api: ApiProcess | undefined;
afterEach(async () => {
  await api?.stop();
  api = undefined;
});

/**
 * `lanes` callers, each sending request after request (`send(lane, i)`), until `enough()`; then
 * the API is killed with SIGKILL. Resolves once every caller has seen the process gone.
 */
async function killUnderLoad(process: ApiProcess, lanes: number, send: (lane: number, i: number) => Promise<void>, enough: () => boolean): Promise<void> {
  let stop = false;
  const callers = Array.from({ length: lanes }, async (_, lane) => {
    for (let i = 0; !stop; i++) {
      try {
        await send(lane, i);
      } catch {
        return; // the process is gone
      }
    }
  });
  while (!enough()) await Bun.sleep(5);
  process.child.kill("SIGKILL");
  await process.child.exited;
  stop = true;
  await Promise.all(callers);
}

describe("the API killed with SIGKILL under writes", () => {
  test("every customer that was created has its activity entry, keyed or not, and every acknowledged create is there", async () => {
    api = await startApiProcess();
    const acknowledged: string[] = [];
    await killUnderLoad(
      api,
      8,
      async (lane, i) => {
        // Half the lanes send an Idempotency-Key: the claim commits in the create's transaction.
        const headers = lane % 2 ? { ...api!.headers, "idempotency-key": `lane-${lane}-${i}` } : api!.headers;
        const r = await fetch(`${api!.base}/api/v1/customers`, { method: "POST", headers, body: JSON.stringify({ name: `Lane ${lane} #${i}` }) });
        if (r.status === 201) acknowledged.push(r.headers.get("request-id")!);
      },
      () => acknowledged.length >= 300,
    );

    const customers = await api.count("customers");
    const entries = await api.count("activity_entries", "method = 'POST' AND status = 201");
    expect(customers).toBeGreaterThanOrEqual(acknowledged.length);
    expect(entries).toBe(customers);
    const recorded = new Set((await api.query<{ id: string }>("SELECT request_id AS id FROM activity_entries")).map((r) => r.id));
    expect(acknowledged.filter((id) => !recorded.has(id))).toEqual([]);
  });

  test("onboardings created in batches: after a kill mid-batch, every key sent again makes exactly one, and no batch is half there", async () => {
    api = await startApiProcess();
    const post = (base: string, key: string, body: unknown) =>
      fetch(`${base}/api/v1/onboardings`, { method: "POST", headers: { ...api!.headers, "idempotency-key": key }, body: JSON.stringify(body) });
    const customer = ((await (await fetch(`${api.base}/api/v1/customers`, { method: "POST", headers: api.headers, body: JSON.stringify({ name: "Batch Co" }) })).json()) as { id: string }).id;
    const sent: string[] = [];
    const acknowledged = new Map<string, string>();
    // Sixteen callers at once: their creates go in batches.
    await killUnderLoad(
      api,
      16,
      async (lane, i) => {
        const key = `batch-${lane}-${i}`;
        sent.push(key);
        const r = await post(api!.base, key, { customer_id: customer, notes: key });
        if (r.status === 201) acknowledged.set(key, ((await r.json()) as { id: string }).id);
      },
      () => acknowledged.size >= 150,
    );
    expect(sent.length).toBeGreaterThan(acknowledged.size); // some were in a batch the kill cut off

    // Started again on the same database, every key is sent again, sixteen at a time.
    const again = await startApiProcess({ beside: api });
    try {
      for (let from = 0; from < sent.length; from += 16) {
        await Promise.all(
          sent.slice(from, from + 16).map(async (key) => {
            const r = await post(again.base, key, { customer_id: customer, notes: key });
            expect(r.status).toBe(201);
            const id = ((await r.json()) as { id: string }).id;
            if (acknowledged.has(key)) expect(id).toBe(acknowledged.get(key)!);
          }),
        );
      }
    } finally {
      await again.stop();
    }
    // One onboarding, one event and one stored response per key; each create's activity entry beside it.
    expect(await api.count("onboardings")).toBe(sent.length);
    expect(await api.count("events", "type = 'onboarding.created'")).toBe(sent.length);
    expect(await api.count("idempotency_keys", "completed_at IS NOT NULL AND key LIKE 'batch-%'")).toBe(sent.length);
    // (A batch's entries are pages of its workspace: storedActivity reads rows and pages.)
    const createEntries = await storedRequestIds(api);
    const createdBy = (await api.query<{ request_id: string }>("SELECT request_id FROM events WHERE type = 'onboarding.created'")).map((r) => r.request_id);
    expect(createdBy.filter((id) => !createEntries.has(id))).toEqual([]);
    // The batches the kill cut off gave their display ids and feed positions back: both in a row.
    const displayIds = (await api.query<{ n: unknown }>("SELECT display_id AS n FROM onboardings ORDER BY display_id")).map((r) => Number(r.n));
    expect(displayIds).toEqual(displayIds.map((_, i) => i + 1));
    const positions = (await api.query<{ n: unknown }>("SELECT position AS n FROM events ORDER BY position")).map((r) => Number(r.n));
    expect(positions).toEqual(positions.map((_, i) => i + 1));
  });

  test("onboardings updated in batches: after a kill mid-batch, every phase change that committed has all its records, and none is half there", async () => {
    api = await startApiProcess();
    const call = (method: string, path: string, body: unknown) => fetch(`${api!.base}${path}`, { method, headers: api!.headers, body: JSON.stringify(body) });
    const customer = ((await (await call("POST", "/api/v1/customers", { name: "Batch Co" })).json()) as { id: string }).id;
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) ids.push(((await (await call("POST", "/api/v1/onboardings", { customer_id: customer })).json()) as { id: string }).id);
    const acknowledged: string[] = [];
    // Sixteen callers at once, each moving onboardings back and forth: their PATCHes go in batches.
    await killUnderLoad(
      api,
      16,
      async (lane, i) => {
        const r = await call("PATCH", `/api/v1/onboardings/${ids[(lane + 16 * i) % ids.length]}`, { phase: i % 2 ? "program_design" : "review", notes: `lane ${lane} #${i}` });
        if (r.status === 200) acknowledged.push(r.headers.get("request-id")!);
      },
      () => acknowledged.length >= 150,
    );

    // Every acknowledged PATCH committed, with its events and its activity entry.
    const requests = new Set((await api.query<{ request_id: string }>("SELECT DISTINCT request_id FROM events WHERE type = 'onboarding.updated'")).map((r) => r.request_id));
    for (const id of acknowledged) expect(requests.has(id)).toBe(true);
    const entries = await storedRequestIds(api);
    expect([...requests].filter((id) => !entries.has(id))).toEqual([]);
    // Each onboarding: one transition (its timeline's entry) and one phase_changed event per phase change, the last one's phase its own.
    for (const id of ids) {
      const transitions = await api.query<{ to_phase: string }>("SELECT to_phase FROM phase_transitions WHERE onboarding_id = ? ORDER BY at", id);
      expect(await api.count("events", "object_id = ? AND type = 'onboarding.phase_changed'", id)).toBe(transitions.length);
      const phase = (await api.query<{ phase: string }>("SELECT phase FROM onboardings WHERE id = ?", id))[0]!.phase;
      expect(phase).toBe(transitions.at(-1)?.to_phase ?? "before_getting_started");
    }
    // The month aggregate counts each transition once; the feed's positions are in a row.
    const visits = Number((await api.query<{ n: unknown }>("SELECT coalesce(sum(visits), 0) AS n FROM phase_visit_months"))[0]!.n);
    expect(visits).toBe(await api.count("phase_transitions"));
    const positions = (await api.query<{ n: unknown }>("SELECT position AS n FROM events ORDER BY position")).map((r) => Number(r.n));
    expect(positions).toEqual(positions.map((_, i) => i + 1));
  });
});
