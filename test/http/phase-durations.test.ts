/**
 * Phase durations and the SLA report over the real app and migrations, with a manual clock, on
 * the engine TEST_ENGINE names: every rule of the clock case by case, then the report against a
 * brute-force model of a few hundred random onboardings spread over several months.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock } from "../../shared/clock.ts";
import { PHASES } from "../../shared/domain.ts";
import { DEFAULT_RATE_LIMITS } from "../../api/limits/request-limits.ts";
import { createTestApp, type TestApp } from "../support/test-app.ts";

const clock = new ManualClock(Date.UTC(2026, 6, 1, 9, 0, 0) * 1000);
let t: TestApp;
let customerId: string;
const HOUR = 3600;

beforeAll(async () => {
  t = await createTestApp({ clock, rateLimits: { ...DEFAULT_RATE_LIMITS, perTier: { default: 1_000_000, paid: 1_000_000 } } });
  customerId = (await t.call("POST", "/api/v1/customers", { body: { name: "Durations Co" } })).body.id;
});
afterAll(async () => {
  await t.close();
});

type Body = Record<string, unknown>;
const create = async (body: Body = {}, key?: string) => {
  const created = await t.call("POST", "/api/v1/onboardings", { body: { customer_id: customerId, ...body }, key });
  expect(created.status).toBe(201);
  return created.body.id as string;
};
const patch = async (id: string, body: Body, key?: string) => {
  const changed = await t.call("PATCH", `/api/v1/onboardings/${id}`, { body, key });
  expect(changed.status).toBe(200);
};
const durations = async (id: string, key?: string) => (await t.call("GET", `/api/v1/onboardings/${id}/phase_durations`, { key })).body;
const phaseOf = (answer: any, phase: string) => answer.phases.find((p: any) => p.phase === phase);
const later = (hours: number) => clock.advanceSeconds(hours * HOUR);

describe("GET /api/v1/onboardings/{ref}/phase_durations", () => {
  test("the current phase counts up to now; a new onboarding has one visit and no launch", async () => {
    const id = await create();
    later(5);
    const answer = await durations(id);
    expect(answer).toMatchObject({
      object: "phase_durations",
      onboarding_id: id,
      current: { phase: "before_getting_started", active_seconds: 5 * HOUR, suspended: false },
      total_active_seconds: 5 * HOUR,
      total_suspended_seconds: 0,
      launched_at: null,
      launched_on_time: null,
    });
    expect(answer.phases).toEqual([
      { phase: "before_getting_started", visits: 1, active_seconds: 5 * HOUR, suspended_seconds: 0, first_entered_at: answer.current.entered_at, last_exited_at: null },
    ]);
  });

  test("repeat visits add up, phases come in phase order, and the answer includes a change the moment it is made", async () => {
    const id = await create();
    later(2);
    await patch(id, { phase: "review" });
    later(3);
    await patch(id, { phase: "program_design" });
    later(1);
    await patch(id, { phase: "review" });
    later(4);
    const answer = await durations(id);
    expect(answer.phases.map((p: any) => [p.phase, p.visits, p.active_seconds])).toEqual([
      ["before_getting_started", 1, 2 * HOUR],
      ["program_design", 1, 1 * HOUR],
      ["review", 2, 7 * HOUR],
    ]);
    expect(answer.total_active_seconds).toBe(10 * HOUR);
    expect(phaseOf(answer, "review").last_exited_at).not.toBeNull();
  });

  test("the clock is suspended only while waiting on the customer: state waiting and waiting_on_customer true", async () => {
    const id = await create();
    later(1);
    await patch(id, { state: "waiting" }); // waiting, not on the customer: runs
    later(1);
    await patch(id, { waiting_on_customer: true }); // suspended from here
    later(3);
    await patch(id, { state: "active" }); // on the customer but active: runs
    later(1);
    const answer = await durations(id);
    expect(answer.current).toMatchObject({ active_seconds: 3 * HOUR, suspended: false });
    expect(phaseOf(answer, "before_getting_started")).toMatchObject({ active_seconds: 3 * HOUR, suspended_seconds: 3 * HOUR });
  });

  test("a phase change while suspended ends the old visit's suspension and starts the new one's", async () => {
    const id = await create({ state: "waiting" });
    await patch(id, { waiting_on_customer: true }); // suspended from here (1 µs after creation: each change is later than the last)
    later(2);
    await patch(id, { phase: "program_design" });
    later(3);
    let answer = await durations(id);
    const before = phaseOf(answer, "before_getting_started");
    expect(before.active_seconds).toBeCloseTo(0, 4);
    expect(before.suspended_seconds).toBeCloseTo(2 * HOUR, 4);
    expect(answer.current).toMatchObject({ phase: "program_design", active_seconds: 0, suspended: true });
    expect(phaseOf(answer, "program_design")).toMatchObject({ suspended_seconds: 3 * HOUR });
    await patch(id, { waiting_on_customer: false });
    later(1);
    answer = await durations(id);
    expect(phaseOf(answer, "program_design")).toMatchObject({ active_seconds: 1 * HOUR, suspended_seconds: 3 * HOUR });
    expect(answer.total_active_seconds).toBeCloseTo(1 * HOUR, 4);
    expect(answer.total_suspended_seconds).toBeCloseTo(5 * HOUR, 4);
  });

  test("created directly in a later phase: only the phases it visited", async () => {
    const id = await create({ phase: "internal_qa" });
    later(1);
    await patch(id, { phase: "launch" });
    const answer = await durations(id);
    expect(answer.phases.map((p: any) => p.phase)).toEqual(["internal_qa", "launch"]);
  });

  test("launched on time, late, or without a target; a second launch does not move launched_at", async () => {
    const target = new Date(clock.nowMicros() / 1000 + 10 * HOUR * 1000).toISOString();
    const onTime = await create({ phase: "internal_qa", target_launch_date: target });
    const late = await create({ phase: "internal_qa", target_launch_date: target });
    const noTarget = await create({ phase: "internal_qa" });
    later(2);
    await patch(onTime, { phase: "launch" });
    await patch(noTarget, { phase: "launch" });
    later(10);
    await patch(late, { phase: "launch" });
    const first = await durations(onTime);
    expect(first.launched_on_time).toBe(true);
    expect((await durations(late)).launched_on_time).toBe(false);
    expect((await durations(noTarget)).launched_on_time).toBeNull();
    later(1);
    await patch(onTime, { phase: "internal_qa" });
    later(1);
    await patch(onTime, { phase: "launch" });
    const again = await durations(onTime);
    expect([again.launched_at, again.launched_on_time]).toEqual([first.launched_at, true]);
    expect(phaseOf(again, "launch").visits).toBe(2);
  });

  test("test keys' changes count (they change the same data); a deleted onboarding is 404; other workspaces see nothing", async () => {
    const id = await create({}, t.keys.test);
    later(1);
    await patch(id, { phase: "review" }, t.keys.test);
    expect(phaseOf(await durations(id), "before_getting_started").active_seconds).toBe(1 * HOUR);
    expect((await t.call("GET", `/api/v1/onboardings/${id}/phase_durations`, { key: t.keys.other })).status).toBe(404);
    await t.call("DELETE", `/api/v1/onboardings/${id}`);
    const gone = await t.call("GET", `/api/v1/onboardings/${id}/phase_durations`);
    expect([gone.status, gone.body.error.code]).toEqual([404, "onboarding_not_found"]);
  });
});

describe("GET /api/v1/reports/phase_durations", () => {
  test("refusals: an unknown customer, a bad instant, an empty period, an unknown parameter", async () => {
    const expectError = async (query: string, status: number, code: string) => {
      const answer = await t.call("GET", `/api/v1/reports/phase_durations?${query}`);
      expect([query, answer.status, answer.body.error?.code]).toEqual([query, status, code]);
    };
    await expectError("customer_id=cus_nope", 404, "customer_not_found");
    await expectError("from=yesterday", 400, "invalid_string");
    await expectError("from=2026-07-02T00:00:00Z&to=2026-07-01T00:00:00Z", 400, "too_small");
    await expectError("phase=review", 400, "unknown_field");
  });

  test("another workspace's report counts none of this workspace's visits", async () => {
    const other = await t.call("GET", "/api/v1/reports/phase_durations", { key: t.keys.other });
    expect(other.status).toBe(200);
    expect(other.body.phases).toEqual([]);
    expect(other.body.launches.count).toBe(0);
  });
});

/**
 * The brute force: a model of each onboarding (phase, when entered, suspended time) kept by the
 * test, every visit it ends listed with its end and active seconds, and the report computed
 * from that list (nearest-rank percentiles).
 */
describe("the report against a brute-force model of random onboardings", () => {
  interface Model {
    id: string;
    customer: string;
    phase: string;
    enteredAt: number;
    suspended: boolean;
    since: number;
    suspendedMicros: number;
    target: number | null;
    launched: boolean;
    waiting: boolean;
    onCustomer: boolean;
  }
  interface Visit {
    phase: string;
    endedAt: number;
    active: number;
    customer: string;
    launch?: number | null;
  }
  const visits: Visit[] = [];
  const models: Model[] = [];
  let random = 42;
  const next = () => (random = (random * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  const customers: string[] = [];
  let start = 0;
  // The model lives in the other workspace, apart from the visits of the cases above.
  let key = "";

  test(
    "a few hundred onboardings over five months",
    async () => {
      key = t.keys.other;
      clock.advanceSeconds(30 * 24 * HOUR);
      start = clock.nowMicros();
      for (let c = 0; c < 4; c++) customers.push((await t.call("POST", "/api/v1/customers", { body: { name: `Model ${c}` }, key })).body.id);
      for (let step = 0; step < 1500; step++) {
        clock.advanceSeconds(Math.floor(next() * 6 * HOUR));
        const now = clock.nowMicros();
        if (models.length < 300 && (models.length < 20 || next() < 0.2)) {
          const customer = pick(customers);
          const phase = pick(PHASES.slice(0, 3));
          const target = next() < 0.7 ? now + Math.floor(next() * 60 * 24 * HOUR) * 1_000_000 : null;
          const body: Body = { customer_id: customer, phase };
          if (target !== null) body.target_launch_date = new Date(target / 1000).toISOString();
          const id = (await t.call("POST", "/api/v1/onboardings", { body, key })).body.id;
          models.push({ id, customer, phase, enteredAt: now, suspended: false, since: 0, suspendedMicros: 0, target, launched: false, waiting: false, onCustomer: false });
          continue;
        }
        const m = pick(models);
        const at = Math.max(now, 0);
        const roll = next();
        const suspendedTo = (s: boolean) => {
          if (m.suspended && !s) m.suspendedMicros += at - m.since;
          if (!m.suspended && s) m.since = at;
          m.suspended = s;
        };
        if (roll < 0.5) {
          const phase = pick(PHASES.filter((p) => p !== m.phase));
          await patch(m.id, { phase }, key);
          const suspendedMicros = m.suspendedMicros + (m.suspended ? at - m.since : 0);
          const firstLaunch = phase === "launch" && !m.launched;
          visits.push({
            phase: m.phase,
            endedAt: at,
            active: Math.max(0, (at - m.enteredAt - suspendedMicros) / 1_000_000),
            customer: m.customer,
            ...(firstLaunch ? { launch: m.target === null ? null : Math.max(0, (at - m.target) / 1_000_000) } : {}),
          });
          if (phase === "launch") m.launched = true;
          Object.assign(m, { phase, enteredAt: at, suspendedMicros: 0, since: at });
        } else if (roll < 0.75) {
          m.waiting = !m.waiting;
          await patch(m.id, { state: m.waiting ? "waiting" : "active" }, key);
          suspendedTo(m.waiting && m.onCustomer);
        } else {
          m.onCustomer = !m.onCustomer;
          await patch(m.id, { waiting_on_customer: m.onCustomer }, key);
          suspendedTo(m.waiting && m.onCustomer);
        }
      }
      expect(visits.length).toBeGreaterThan(500);
    },
    120_000,
  );

  const nearestRank = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.max(1, Math.ceil(p * values.length)) - 1]!;
  function expected(from: number | null, to: number | null, customer: string | null) {
    const chosen = visits.filter((v) => (from === null || v.endedAt >= from) && (to === null || v.endedAt < to) && (customer === null || v.customer === customer));
    const phases = PHASES.flatMap((phase) => {
      const values = chosen.filter((v) => v.phase === phase).map((v) => v.active);
      if (values.length === 0) return [];
      return [{ phase, visits: values.length, mean: values.reduce((a, b) => a + b, 0) / values.length, median: nearestRank(values, 0.5), p90: nearestRank(values, 0.9) }];
    });
    const launches = chosen.filter((v) => v.launch !== undefined);
    const late = launches.filter((v) => v.launch! > 0);
    const onTime = launches.filter((v) => v.launch === 0).length;
    return {
      phases,
      launches: {
        count: launches.length,
        on_time: onTime,
        late: late.length,
        on_time_rate: onTime + late.length === 0 ? null : onTime / (onTime + late.length),
        mean_delay_seconds: late.length === 0 ? null : late.reduce((a, v) => a + v.launch!, 0) / late.length,
      },
    };
  }
  const close = (actual: number, wanted: number, relative: number) => Math.abs(actual - wanted) <= Math.max(1, wanted * relative) + 1e-6;

  async function check(from: number | null, to: number | null, customer: string | null, exactPercentiles: boolean) {
    const query = new URLSearchParams();
    if (from !== null) query.set("from", new Date(from / 1000).toISOString());
    if (to !== null) query.set("to", new Date(to / 1000).toISOString());
    if (customer !== null) query.set("customer_id", customer);
    const answer = await t.call("GET", `/api/v1/reports/phase_durations?${query}`, { key });
    expect(answer.status).toBe(200);
    const want = expected(from, to, customer);
    expect(answer.body.phases.map((p: any) => [p.phase, p.visits])).toEqual(want.phases.map((p) => [p.phase, p.visits]));
    for (const [i, p] of want.phases.entries()) {
      const got = answer.body.phases[i];
      const label = `${p.phase} ${query}`;
      expect([label, close(got.mean_active_seconds, p.mean, 1e-9)]).toEqual([label, true]);
      const tolerance = exactPercentiles ? 1e-9 : 0.02;
      expect([label, got.median_active_seconds, close(got.median_active_seconds, p.median, tolerance)]).toEqual([label, got.median_active_seconds, true]);
      expect([label, got.p90_active_seconds, close(got.p90_active_seconds, p.p90, tolerance)]).toEqual([label, got.p90_active_seconds, true]);
    }
    const { mean_delay_seconds, ...counts } = answer.body.launches;
    const { mean_delay_seconds: wantedDelay, ...wantedCounts } = want.launches;
    expect(counts).toEqual(wantedCounts);
    expect(wantedDelay === null ? mean_delay_seconds === null : close(mean_delay_seconds, wantedDelay, 1e-9)).toBe(true);
  }

  const monthStartAfter = (micros: number, months: number) => {
    const d = new Date(micros / 1000);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, 1) * 1000;
  };

  test("every time: whole months (the aggregate), within 2%", async () => {
    await check(null, null, null, false);
  });
  test("whole months only, from the first full month to the last", async () => {
    await check(monthStartAfter(start, 1), monthStartAfter(start, 3), null, false);
  });
  test("partial months at both ends (aggregate inside, single visits at the edges)", async () => {
    await check(start + 10 * 24 * HOUR * 1_000_000, monthStartAfter(start, 3) + 7 * 24 * HOUR * 1_000_000, null, false);
  });
  test("within one month: single visits, exact", async () => {
    const from = monthStartAfter(start, 1) + 3 * 24 * HOUR * 1_000_000;
    await check(from, from + 14 * 24 * HOUR * 1_000_000, null, true);
  });
  test("one customer's: single visits, exact", async () => {
    await check(null, null, customers[1]!, true);
    await check(monthStartAfter(start, 1), null, customers[2]!, true);
  });
});
