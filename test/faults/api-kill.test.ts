import { afterEach, describe, expect, test } from "bun:test";
import { startApiProcess, type ApiProcess } from "../support/api-process.ts";

/**
 * kill -9 of the API under writes: every change that committed has its activity entry,
 * because the entry is written in the change's own transaction. (Entries of read calls are
 * batched in memory for at most 50 ms; those may be lost, as the README says.)
 */
let api: ApiProcess | undefined;
afterEach(async () => {
  await api?.stop();
  api = undefined;
});

describe("the API killed with SIGKILL under writes", () => {
  test("every customer that was created has its activity entry, and every acknowledged create is there", async () => {
    api = await startApiProcess();
    const acknowledged: string[] = [];
    let stop = false;
    const writer = async (lane: number) => {
      for (let i = 0; !stop; i++) {
        try {
          const r = await fetch(`${api!.base}/api/v1/customers`, { method: "POST", headers: api!.headers, body: JSON.stringify({ name: `Lane ${lane} #${i}` }) });
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

    const db = api.db.$client;
    const customers = (db.query("SELECT count(*) AS n FROM customers").get() as { n: number }).n;
    const entries = (db.query("SELECT count(*) AS n FROM activity_entries WHERE method = 'POST' AND status = 201").get() as { n: number }).n;
    expect(customers).toBeGreaterThanOrEqual(acknowledged.length);
    expect(entries).toBe(customers);
    const missing = acknowledged.filter((id) => db.query("SELECT 1 FROM activity_entries WHERE request_id = ?").get(id) === null);
    expect(missing).toEqual([]);
  });
});
