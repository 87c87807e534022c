import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { run } from "../../shared/db/flow.ts";
import { createPhaseDurationStore, type PhaseChange } from "../../shared/db/phase-durations.store.ts";
import { createTestApp, type TestApp } from "../support/test-app.ts";

/**
 * A phase change's record and its month, written in the change's transaction (npm test runs
 * this on SQLite and PostgreSQL). The two ways in: the API's change (`recordNew`, a source that
 * is new by construction) and a record that may have been written before (`record`).
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const AT = Date.UTC(2026, 10, 20, 12) * 1000;
const change = (source: string): PhaseChange => ({
  source,
  orgId: "org_pd",
  customerId: "cus_pd",
  onboardingId: "onb_pd",
  from: "review",
  to: "internal_qa",
  at: AT,
  actor: "api_key:k",
  phaseEnteredAt: AT - 3_600_000_000,
  slaSuspendedSeconds: 0,
  targetMicros: null,
});
const visits = async () => Number((await t.query<{ n: unknown }>("SELECT coalesce(sum(visits), 0) AS n FROM phase_visit_months WHERE org_id = 'org_pd'"))[0]!.n);
const records = () => t.count("phase_transitions", "org_id = 'org_pd'");

describe("phase transitions and their months", () => {
  test("a change's record whose source exists fails its transaction: nothing is written twice, nor its visit counted twice", async () => {
    const store = createPhaseDurationStore(t.database.sql);
    // A promise on either engine (SQLite's transaction answers, or throws, on the spot).
    const recordNew = async (c: PhaseChange) =>
      run(
        t.database.transaction(function* () {
          const addToMonths = yield* store.recordNew(c);
          yield* addToMonths();
        }),
      );
    await recordNew(change("onb_pd:1"));
    expect([await records(), await visits()]).toEqual([1, 1]);
    await expect(recordNew(change("onb_pd:1"))).rejects.toThrow();
    expect([await records(), await visits()]).toEqual([1, 1]);
  });

  test("a record that may have been written before (a job of an older version) is written once, its visit counted once", async () => {
    const store = createPhaseDurationStore(t.database.sql);
    const record = (c: PhaseChange) => run(t.database.transaction(() => store.record(c)));
    await record(change("job_pd_1"));
    await record(change("job_pd_1"));
    await record(change("onb_pd:1")); // the change above's own record: already there
    expect([await records(), await visits()]).toEqual([2, 2]);
  });
});
