import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Onboarding, OnboardingList } from "../../api/onboardings/onboardings.schema.ts";
import { PHASES, STATES } from "../../shared/domain.ts";
import { listTimeline } from "../../admin/reports.ts";
import { run } from "../../shared/db/flow.ts";
import { createTestApp, expectError, expectSchema, ManualClock, type TestApp } from "../support/test-app.ts";

const clock = new ManualClock();
let t: TestApp;
let customer: { id: string; display_id: number };
beforeAll(async () => {
  t = await createTestApp({ clock });
  customer = (await t.call("POST", "/api/v1/customers", { body: { name: "Acme" } })).body;
});
afterAll(() => t.close());

type OutboxRow = { queue: string; name: string; payload: string };
const outbox = () => t.query<OutboxRow>("SELECT queue, name, payload FROM outbox ORDER BY id");
const outboxFor = async (onboardingId: string) =>
  (await outbox())
    .map((row) => ({ ...row, payload: JSON.parse(row.payload) }))
    .filter((row) => row.payload.onboarding_id === onboardingId);

/** The phase-transition records of an onboarding, oldest first (written in the change's transaction). */
const transitionsOf = async (onboardingId: string) =>
  (
    await t.query<Record<string, any>>(
      "SELECT from_phase, to_phase, actor, customer_id, at, phase_entered_at, sla_suspended_seconds, active_seconds FROM phase_transitions WHERE onboarding_id = ? ORDER BY at",
      onboardingId,
    )
  ).map((row) => ({ ...row })); // plain objects: PostgreSQL's result rows carry more than their columns

/** An onboarding's entries in its customer's timeline, as `npm run admin -- timeline list` reads them. */
const timelineOf = async (onboardingId: string) =>
  (await run(listTimeline(t.database, "acme", customer.id))).filter((entry) => entry.onboarding_id === onboardingId).map(({ at: _, ...entry }) => entry);

const create = async (body: Record<string, unknown> = {}, key = t.keys.live) =>
  (await t.call("POST", "/api/v1/onboardings", { key, body: { customer_id: customer.id, ...body } })).body;

describe("onboardings", () => {
  test("create applies every default of the spec's table", async () => {
    const response = await t.call("POST", "/api/v1/onboardings", { body: { customer_id: customer.id } });
    expect(response.status).toBe(201);
    expectSchema(Onboarding, response.body);
    expect(response.body).toMatchObject({
      object: "onboarding",
      customer_id: customer.id,
      template_id: null,
      phase: "before_getting_started",
      state: "active",
      completed_at: null,
      target_launch_date: null,
      csm_id: null,
      notes: null,
      waiting_on_customer: false,
      waiting_on_customer_since: null,
      wizard_completed_at: null,
      reminder_email: true,
      reminder_slack: true,
      reminder_frequency_days: 1,
    });
    expect(response.body.started_at).toBe(response.body.created_at);
  });

  test("customer_id takes the id, the display_id as a string, or as an integer", async () => {
    for (const ref of [customer.id, String(customer.display_id), customer.display_id]) {
      const response = await t.call("POST", "/api/v1/onboardings", { body: { customer_id: ref } });
      expect(response.status).toBe(201);
      expect(response.body.customer_id).toBe(customer.id);
    }
    expectError(await t.call("POST", "/api/v1/onboardings", { body: { customer_id: "cus_missing" } }), 404, "customer_not_found", "customer_id");
    expectError(await t.call("POST", "/api/v1/onboardings", { body: { customer_id: 0 } }), 400, "too_small", "customer_id");
    expectError(await t.call("POST", "/api/v1/onboardings", { body: {} }), 400, "missing_field", "customer_id");
  });

  test("create takes any phase and state as given, and the optional fields", async () => {
    const body = {
      phase: "completed",
      state: "at_risk",
      template_id: "tpl_1",
      target_launch_date: "2027-01-15T09:00:00+01:00",
      csm_id: "usr_csm",
      se_id: null,
      notes: "n",
      reminder_email: false,
      reminder_slack: false,
      reminder_frequency_days: 7,
    };
    const created = await create(body);
    expect(created).toMatchObject(body);
    expect(created.completed_at).toBe(created.created_at);
    expect(await outboxFor(created.id)).toEqual([]); // creating records no phase change
  });

  test("validation of the create body", async () => {
    const bad: [Record<string, unknown>, string, string][] = [
      [{ phase: "launched" }, "invalid_enum_value", "phase"],
      [{ state: "blocked" }, "invalid_enum_value", "state"],
      [{ reminder_frequency_days: 0 }, "too_small", "reminder_frequency_days"],
      [{ reminder_frequency_days: 366 }, "too_big", "reminder_frequency_days"],
      [{ reminder_frequency_days: 1.5 }, "invalid_type", "reminder_frequency_days"],
      [{ target_launch_date: "next week" }, "invalid_string", "target_launch_date"],
      [{ notes: "x".repeat(10_001) }, "too_big", "notes"],
      [{ csm_id: "x".repeat(256) }, "too_big", "csm_id"],
      [{ waiting_on_customer: true }, "unknown_field", "waiting_on_customer"],
    ];
    for (const [body, code, field] of bad) {
      expectError(await t.call("POST", "/api/v1/onboardings", { body: { customer_id: customer.id, ...body } }), 400, code, field);
    }
  });

  test("PATCH changes many fields at once and keeps the derived ones", async () => {
    const created = await create();
    clock.advanceSeconds(5);
    const patched = await t.call("PATCH", `/api/v1/onboardings/${created.display_id}`, {
      body: { phase: "completed", state: "waiting", waiting_on_customer: true, notes: "done", wizard_completed_at: "2026-11-22T10:00:00Z" },
    });
    expect(patched.status).toBe(200);
    expectSchema(Onboarding, patched.body);
    expect(patched.body).toMatchObject({ phase: "completed", state: "waiting", waiting_on_customer: true, notes: "done", wizard_completed_at: "2026-11-22T10:00:00Z" });
    expect(patched.body.completed_at).toBe(patched.body.updated_at);
    expect(patched.body.waiting_on_customer_since).toBe(patched.body.updated_at);
    expect(patched.body.updated_at > created.updated_at).toBe(true);

    clock.advanceSeconds(5);
    const reopened = await t.call("PATCH", `/api/v1/onboardings/${created.id}`, { body: { phase: "launch", waiting_on_customer: false } });
    expect(reopened.body.completed_at).toBeNull();
    expect(reopened.body.waiting_on_customer_since).toBeNull();
    expectError(await t.call("PATCH", `/api/v1/onboardings/${created.id}`, { body: { customer_id: "x" } }), 400, "unknown_field", "customer_id");
  });

  test("a body that changes nothing answers 200, writes nothing and records no event", async () => {
    const created = await create({ phase: "review" });
    // This onboarding's rows only: read calls' activity batches (these no-op PATCHes' included,
    // by design) reach the outbox on their own schedule, every 50 ms.
    const before = (await outboxFor(created.id)).length;
    const same = await t.call("PATCH", `/api/v1/onboardings/${created.id}`, { body: { phase: "review", state: "active" } });
    const empty = await t.call("PATCH", `/api/v1/onboardings/${created.id}`);
    expect(same.status).toBe(200);
    expect(empty.status).toBe(200);
    expect(same.body).toEqual(created);
    expect((await outboxFor(created.id)).length).toBe(before);
  });

  test("a phase change writes its phase-transition record in its own transaction, its customer's timeline shows it, queues nothing, actor = key name", async () => {
    const created = await create();
    await t.call("PATCH", `/api/v1/onboardings/${created.id}`, { body: { phase: "program_design" } });
    expect(await outboxFor(created.id)).toEqual([]);
    expect(await transitionsOf(created.id)).toMatchObject([{ from_phase: "before_getting_started", to_phase: "program_design", actor: "crm-sync", customer_id: customer.id }]);
    // The transition is the timeline's entry: stored once, not copied into timeline_events.
    expect(await timelineOf(created.id)).toEqual([
      { object: "timeline_event", kind: "phase_changed", onboarding_id: created.id, from: "before_getting_started", to: "program_design", actor: "crm-sync" },
    ]);
    expect(await t.count("timeline_events", "onboarding_id = ?", created.id)).toBe(0);
  });

  test("a customer's timeline shows a change once, whichever release wrote it: a copy in timeline_events and its transition, a queued job's row, a transition alone", async () => {
    const created = await create();
    await t.call("PATCH", `/api/v1/onboardings/${created.id}`, { body: { phase: "program_design" } });
    await t.call("PATCH", `/api/v1/onboardings/${created.id}`, { body: { phase: "review" } });
    const [first, second] = await t.query<{ at: unknown; source: string }>("SELECT at, source FROM phase_transitions WHERE onboarding_id = ? ORDER BY at", created.id);
    const orgId = (await t.query<{ org_id: string }>("SELECT org_id FROM onboardings WHERE id = ?", created.id))[0]!.org_id;
    const row = `INSERT INTO timeline_events (source, org_id, customer_id, onboarding_id, kind, data, actor, at) VALUES (?, ?, ?, ?, 'phase_changed', ?, 'crm-sync', ?)`;
    // As the tenth to eighteenth passes wrote it: a copy of the first change's transition, same source.
    await t.query(row, first!.source, orgId, customer.id, created.id, JSON.stringify({ from: "before_getting_started", to: "program_design" }), Number(first!.at));
    // As an earlier release's worker wrote a queued job: keyed by the job, at the change's instant.
    await t.query(row, "outbox-1", orgId, customer.id, created.id, JSON.stringify({ from: "program_design", to: "review" }), Number(second!.at));
    // A change of that release whose transition was never recorded (its job lost before transitions were kept).
    await t.query(row, "outbox-2", orgId, customer.id, created.id, JSON.stringify({ from: "review", to: "program_buildout" }), Number(second!.at) + 1);
    expect((await timelineOf(created.id)).map((entry) => [entry.from, entry.to])).toEqual([
      ["before_getting_started", "program_design"],
      ["program_design", "review"],
      ["review", "program_buildout"],
    ]);
  });

  test("PATCHes of many different sets of fields each store exactly what they answer", async () => {
    // The store writes only the columns a change changed, with an UPDATE per set of them (up to
    // a bound, then one that writes all): 120 PATCHes of random sets, each checked against a read.
    const created = await create();
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const choices: Record<string, () => unknown> = {
      phase: () => PHASES[Math.floor(random() * PHASES.length)],
      state: () => STATES[Math.floor(random() * STATES.length)],
      notes: () => `note ${Math.floor(random() * 1000)}`,
      csm_id: () => (random() < 0.3 ? null : `usr_${Math.floor(random() * 5)}`),
      target_launch_date: () => (random() < 0.3 ? null : `2027-0${1 + Math.floor(random() * 9)}-1${Math.floor(random() * 9)}T09:30:00Z`),
      reminder_frequency_days: () => 1 + Math.floor(random() * 14),
      waiting_on_customer: () => random() < 0.5,
      reminder_email: () => random() < 0.5,
    };
    const names = Object.keys(choices);
    for (let i = 0; i < 120; i++) {
      const body = Object.fromEntries(names.filter(() => random() < 0.4).map((name) => [name, choices[name]!()]));
      const patched = await t.call("PATCH", `/api/v1/onboardings/${created.id}`, { body });
      expect(patched.status).toBe(200);
      for (const [name, value] of Object.entries(body)) {
        const answered = patched.body[name];
        if (name === "target_launch_date" && value !== null) expect(Date.parse(answered)).toBe(Date.parse(value as string));
        else expect(answered).toEqual(value);
      }
      expect((await t.call("GET", `/api/v1/onboardings/${created.id}`)).body).toEqual(patched.body);
    }
  });

  test("a phase change whose transaction fails leaves neither its timeline event nor its transition record", async () => {
    const created = await create();
    const postgres = t.database.engine === "postgres";
    // The change's events, its last writes, are refused: the whole transaction rolls back.
    if (postgres) {
      await t.query("CREATE FUNCTION refuse_event() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused for the test'; END $$");
      await t.query("CREATE TRIGGER refuse_event BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION refuse_event()");
    } else {
      await t.query("CREATE TRIGGER refuse_event BEFORE INSERT ON events BEGIN SELECT RAISE(ABORT, 'refused for the test'); END");
    }
    try {
      const response = await t.call("PATCH", `/api/v1/onboardings/${created.id}`, { body: { phase: "program_design" } });
      expect(response.status).toBe(500);
    } finally {
      await t.query(postgres ? "DROP TRIGGER refuse_event ON events" : "DROP TRIGGER refuse_event");
      if (postgres) await t.query("DROP FUNCTION refuse_event()");
    }
    expect((await t.call("GET", `/api/v1/onboardings/${created.id}`)).body.phase).toBe(created.phase);
    expect(await transitionsOf(created.id)).toEqual([]);
    expect(await timelineOf(created.id)).toEqual([]);
  });

  test("entering launch with a live key queues the launch automations", async () => {
    const created = await create({ csm_id: "usr_csm" });
    await t.call("PATCH", `/api/v1/onboardings/${created.id}`, { body: { phase: "launch" } });
    expect((await outboxFor(created.id)).map((r) => `${r.queue}/${r.name}`)).toEqual(["outbound/launch.slack_dm", "outbound/launch.calendar_entry"]);
  });

  test("the recap e-mail draft is queued only where the workspace enabled it", async () => {
    await t.query("UPDATE organizations SET launch_recap_enabled = ? WHERE slug = 'acme'", true);
    const created = await create();
    await t.call("PATCH", `/api/v1/onboardings/${created.id}`, { body: { phase: "launch" } });
    await t.query("UPDATE organizations SET launch_recap_enabled = ? WHERE slug = 'acme'", false);
    expect((await outboxFor(created.id)).map((r) => r.name)).toContain("launch.recap_email");
  });

  test("a test key changes data and records, but queues nothing outbound", async () => {
    const created = await create({}, t.keys.test);
    const patched = await t.call("PATCH", `/api/v1/onboardings/${created.id}`, { key: t.keys.test, body: { phase: "launch" } });
    expect(patched.body.phase).toBe("launch");
    // Its records are written (the transition, the timeline's entry, in the change's transaction); nothing is queued.
    expect(await outboxFor(created.id)).toEqual([]);
    expect((await transitionsOf(created.id)).map((r) => r.actor)).toEqual(["ci-suite"]);
    expect((await timelineOf(created.id)).map((entry) => entry.actor)).toEqual(["ci-suite"]);
  });

  test("the SLA clock is suspended only while state is waiting with waiting_on_customer", async () => {
    const created = await create({ phase: "review" });
    clock.advanceSeconds(100);
    await t.call("PATCH", `/api/v1/onboardings/${created.id}`, { body: { state: "waiting" } }); // not suspended yet
    clock.advanceSeconds(10);
    await t.call("PATCH", `/api/v1/onboardings/${created.id}`, { body: { waiting_on_customer: true } }); // suspended
    clock.advanceSeconds(30);
    await t.call("PATCH", `/api/v1/onboardings/${created.id}`, { body: { state: "active" } }); // resumed
    clock.advanceSeconds(20);
    await t.call("PATCH", `/api/v1/onboardings/${created.id}`, { body: { state: "waiting" } }); // suspended again
    clock.advanceSeconds(15);
    await t.call("PATCH", `/api/v1/onboardings/${created.id}`, { body: { phase: "program_buildout" } });
    clock.advanceSeconds(40);
    await t.call("PATCH", `/api/v1/onboardings/${created.id}`, { body: { phase: "internal_qa" } });

    const transitions = await transitionsOf(created.id);
    expect(transitions.map((p) => Number(p.sla_suspended_seconds))).toEqual([45, 40]);
    expect(transitions.map((p) => Math.round(Number(p.active_seconds)))).toEqual([130, 0]); // each change is at least 1 µs after the last
    expect(Number(transitions[1]!.phase_entered_at)).toBe(Number(transitions[0]!.at));
  });

  test("a deleted onboarding answers 404 onboarding_not_found to GET, PATCH and DELETE", async () => {
    const created = await create();
    const deleted = await t.call("DELETE", `/api/v1/onboardings/${created.display_id}`);
    expect(deleted.body).toEqual({ object: "onboarding", id: created.id, deleted: true });
    expectError(await t.call("GET", `/api/v1/onboardings/${created.id}`), 404, "onboarding_not_found");
    expectError(await t.call("PATCH", `/api/v1/onboardings/${created.id}`, { body: { phase: "launch" } }), 404, "onboarding_not_found");
    expectError(await t.call("DELETE", `/api/v1/onboardings/${created.id}`), 404, "onboarding_not_found");
    const list = await t.call("GET", "/api/v1/onboardings?limit=100");
    expectSchema(OnboardingList, list.body);
    expect(list.body.data.map((o: { id: string }) => o.id)).not.toContain(created.id);
  });
});
