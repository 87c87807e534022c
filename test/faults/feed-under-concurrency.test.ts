import { afterEach, describe, expect, test } from "bun:test";
import { startApiProcess, type ApiProcess } from "../support/api-process.ts";

/**
 * The change feed's promise under concurrency, with real API processes on either engine (npm
 * test runs it on SQLite and on PostgreSQL): while two API processes commit changes at once,
 * many of them to the same records, a follower that passes each `next_cursor` back sees every
 * event exactly once, and each record's last event is its committed state (commit order, not
 * the order transactions began). Its cursor survives a restart of every API process.
 */
const running: ApiProcess[] = [];
afterEach(async () => {
  for (const api of running.splice(0).reverse()) await api.stop();
});

type Ev = { id: string; type: string; data: { object: { id: string; notes?: string | null; updated_at: string } } };

async function page(api: ApiProcess, after: string): Promise<{ data: Ev[]; has_more: boolean; next_cursor: string }> {
  const r = await fetch(`${api.base}/api/v1/events?limit=100&after=${after}`, { headers: api.headers });
  expect(r.status).toBe(200);
  return (await r.json()) as never;
}

describe("the change feed with several API processes committing at once", () => {
  test("a follower sees every event once, each record's last event is its committed state, and its cursor outlives the processes", async () => {
    const first = await startApiProcess();
    running.push(first);
    const second = await startApiProcess({ beside: first });
    running.push(second);
    const apis = [first, second];
    const call = (api: ApiProcess, method: string, path: string, body?: unknown) =>
      fetch(`${api.base}${path}`, { method, headers: api.headers, body: body === undefined ? undefined : JSON.stringify(body) });

    const start = ((await (await call(first, "GET", "/api/v1/events/cursor")).json()) as { cursor: string }).cursor;
    const customer = (await (await call(first, "POST", "/api/v1/customers", { name: "Feed Race Co" })).json()) as { id: string };
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(((await (await call(first, "POST", "/api/v1/onboardings", { customer_id: customer.id })).json()) as { id: string }).id);

    // Four writers on two processes (240 PATCHes: within the paid key's 600 a minute): each PATCHes every onboarding in turn, so every record
    // is changed by several requests at once; each body is unique, so every PATCH changes it.
    let writing = true;
    const writers = Array.from({ length: 4 }, async (_, w) => {
      for (let round = 0; round < 10; round++) {
        await Promise.all(
          ids.map((id, i) =>
            call(apis[(w + i) % 2]!, "PATCH", `/api/v1/onboardings/${id}`, { notes: `w${w}-r${round}`, phase: round % 2 ? "review" : "program_design" }).then((r) =>
              expect(r.status).toBe(200),
            ),
          ),
        );
      }
    });

    // The follower polls both processes in turn while the writers run.
    const seen: Ev[] = [];
    let cursor = start;
    let turn = 0;
    const follower = (async () => {
      for (;;) {
        const stillWriting = writing;
        const p = await page(apis[turn++ % 2]!, cursor);
        seen.push(...p.data);
        cursor = p.next_cursor;
        if (!p.has_more && !stillWriting) return;
        if (!p.has_more) await Bun.sleep(20);
      }
    })();
    await Promise.all(writers);
    writing = false;
    await follower;

    // Once each, and all of them: the database's own count of this workspace's events since the start.
    const ids_ = seen.map((e) => e.id);
    expect(new Set(ids_).size).toBe(ids_.length);
    const written = await first.database.count("events", "object_id IN (?, ?, ?, ?, ?, ?, ?)", customer.id, ...ids);
    expect(seen.length).toBe(written);
    expect(seen.filter((e) => e.type === "onboarding.updated")).toHaveLength(4 * 10 * ids.length);

    // Commit order: the last event of each onboarding is the state it has now.
    for (const id of ids) {
      const now = (await (await call(first, "GET", `/api/v1/onboardings/${id}`)).json()) as Ev["data"]["object"];
      const last = seen.filter((e) => e.data.object.id === id).at(-1)!;
      expect({ notes: last.data.object.notes, updated_at: last.data.object.updated_at }).toEqual({ notes: now.notes, updated_at: now.updated_at });
    }

    // Every API process restarts; the same cursor goes on from where it was, nothing repeated.
    // (The first owns the database: its process ends here, its files at afterEach.)
    await second.stop();
    first.child.kill("SIGTERM");
    await first.child.exited;
    const again = await startApiProcess({ beside: first });
    running.push(again);
    await call(again, "PATCH", `/api/v1/onboardings/${ids[0]}`, { notes: "after the restart" });
    const resumed = await page(again, cursor);
    expect(resumed.data.map((e) => `${e.type} ${e.data.object.notes}`)).toEqual(["onboarding.updated after the restart"]);
  });
});
