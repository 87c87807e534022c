import { afterEach, describe, expect, test } from "bun:test";
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

describe("the API killed with SIGKILL under writes", () => {
  test("every customer that was created has its activity entry, keyed or not, and every acknowledged create is there", async () => {
    api = await startApiProcess();
    const acknowledged: string[] = [];
    let stop = false;
    const writer = async (lane: number) => {
      for (let i = 0; !stop; i++) {
        try {
          // Half the lanes send an Idempotency-Key: the claim commits in the create's transaction.
          const headers = lane % 2 ? { ...api!.headers, "idempotency-key": `lane-${lane}-${i}` } : api!.headers;
          const r = await fetch(`${api!.base}/api/v1/customers`, { method: "POST", headers, body: JSON.stringify({ name: `Lane ${lane} #${i}` }) });
          if (r.status === 201) acknowledged.push(r.headers.get("request-id")!);
        } catch {
          return; // the process is gone
        }
      }
    };
    const lanes = Array.from({ length: 8 }, (_, lane) => writer(lane));
    while (acknowledged.length < 300) await Bun.sleep(5);
    api.child.kill("SIGKILL");
    await api.child.exited;
    stop = true;
    await Promise.all(lanes);

    const customers = await api.count("customers");
    const entries = await api.count("activity_entries", "method = 'POST' AND status = 201");
    expect(customers).toBeGreaterThanOrEqual(acknowledged.length);
    expect(entries).toBe(customers);
    const recorded = new Set((await api.query<{ id: string }>("SELECT request_id AS id FROM activity_entries")).map((r) => r.id));
    expect(acknowledged.filter((id) => !recorded.has(id))).toEqual([]);
  });
});
