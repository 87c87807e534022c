import { afterEach, describe, expect, test } from "bun:test";
import { startApiProcess, type ApiProcess } from "../support/api-process.ts";

/**
 * Read-decide-write under concurrency, with real API processes on either engine (npm test runs
 * it on SQLite and on PostgreSQL): a PATCH reads the onboarding, decides whether its phase
 * changed, and writes it with the phase change's records and launch automations. Two identical
 * PATCHes at once must change the phase once: one transition record, one DM to the CSM. On
 * PostgreSQL (READ COMMITTED) that holds only because the read locks the row. A move into
 * `launch` runs alone; a move elsewhere goes in the process's batch of PATCHes made together
 * (api/onboardings/onboarding-updates.together.ts), where the two copies may meet in one batch
 * (the second applies to what the first made) or in two processes' batches (the second reads
 * what the first committed): either way once.
 */
const running: ApiProcess[] = [];
afterEach(async () => {
  for (const api of running.splice(0).reverse()) await api.stop();
});

const ONBOARDINGS = 30;

async function onboardingsOf(api: ApiProcess): Promise<string[]> {
  const customer = (await (await fetch(`${api.base}/api/v1/customers`, { method: "POST", headers: api.headers, body: JSON.stringify({ name: "Race Co" }) })).json()) as { id: string };
  const ids: string[] = [];
  for (let i = 0; i < ONBOARDINGS; i++) {
    const created = await fetch(`${api.base}/api/v1/onboardings`, { method: "POST", headers: api.headers, body: JSON.stringify({ customer_id: customer.id, csm_id: "usr_csm", phase: "internal_qa" }) });
    ids.push(((await created.json()) as { id: string }).id);
  }
  return ids;
}

async function racePatches(first: ApiProcess, second: ApiProcess, ids: string[], phase: "launch" | "review" = "launch") {
  const patch = (api: ApiProcess, id: string) =>
    fetch(`${api.base}/api/v1/onboardings/${id}`, { method: "PATCH", headers: api.headers, body: JSON.stringify({ phase }) }).then((r) => r.status);
  const statuses = (await Promise.all(ids.map((id) => Promise.all([patch(first, id), patch(second, id)])))).flat();
  expect(statuses.every((s) => s === 200)).toBe(true);
  const per = async (name: string) =>
    first.database.query<{ n: number | string }>(`SELECT count(*) AS n FROM outbox WHERE name = ? AND payload LIKE ?`, name, "%").then((rows) => Number(rows[0]!.n));
  // Phase-transition records (each also its customer's timeline entry) are written in the change's transaction, the launch automations queued as outbox rows.
  let transitions = 0;
  for (const id of ids) transitions += await first.database.count("phase_transitions", "onboarding_id = ?", id);
  const launches = phase === "launch" ? ids.length : 0;
  expect({ transitions, dms: await per("launch.slack_dm"), calendar: await per("launch.calendar_entry") }).toEqual({
    transitions: ids.length,
    dms: launches,
    calendar: launches,
  });
  // One onboarding.phase_changed event per onboarding.
  for (const id of ids) expect(await first.database.count("events", "object_id = ? AND type = ?", id, "onboarding.phase_changed")).toBe(1);
  if (phase !== "launch") return;
  // Each onboarding has exactly one of each, not one onboarding two and another none.
  for (const id of ids) expect(await first.database.count("outbox", "name = ? AND payload LIKE ?", "launch.slack_dm", `%"${id}"%`)).toBe(1);
}

describe("identical changes at the same moment apply once", () => {
  // A move into launch runs alone; a move to review goes in the process's batches of PATCHes.
  for (const phase of ["launch", "review"] as const) {
    test(`two PATCHes to ${phase} at once on one process: one phase change, one transition record${phase === "launch" ? ", one DM" : ""} each`, async () => {
      const api = await startApiProcess();
      running.push(api);
      await racePatches(api, api, await onboardingsOf(api), phase);
    });

    test(`two PATCHes to ${phase} at once on two API processes over one database: the same`, async () => {
      const first = await startApiProcess();
      running.push(first);
      const second = await startApiProcess({ beside: first });
      running.push(second);
      await racePatches(first, second, await onboardingsOf(first), phase);
    });
  }

  test("one slug asked for by ten creates and ten renames at once: one gets it, every other answers 409 slug_taken, none 500", async () => {
    const first = await startApiProcess();
    running.push(first);
    const second = await startApiProcess({ beside: first });
    running.push(second);
    const post = (api: ApiProcess, body: unknown) => fetch(`${api.base}/api/v1/customers`, { method: "POST", headers: api.headers, body: JSON.stringify(body) });
    const others = await Promise.all(Array.from({ length: 10 }, (_, i) => post(first, { name: `Other ${i}` }).then((r) => r.json() as Promise<{ id: string }>)));
    const answers = await Promise.all([
      ...Array.from({ length: 10 }, (_, i) => post(i % 2 ? first : second, { name: `Wanted ${i}`, slug: "wanted" })),
      ...others.map((c, i) =>
        fetch(`${(i % 2 ? first : second).base}/api/v1/customers/${c.id}`, { method: "PATCH", headers: first.headers, body: JSON.stringify({ slug: "wanted" }) }),
      ),
    ]);
    const outcomes = await Promise.all(answers.map(async (r) => (r.ok ? String(r.status) : `${r.status} ${((await r.json()) as { error: { code: string } }).error.code}`)));
    expect(outcomes.filter((o) => o === "201" || o === "200")).toHaveLength(1);
    expect(outcomes.filter((o) => o !== "201" && o !== "200")).toEqual(Array.from({ length: 19 }, () => "409 slug_taken"));
    expect(await first.database.count("customers", "slug = ? AND deleted_at IS NULL", "wanted")).toBe(1);
  });
});
