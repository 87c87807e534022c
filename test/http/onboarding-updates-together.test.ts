import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, expectError, type TestApp } from "../support/test-app.ts";

/**
 * Updates of onboardings made together (api/http/together.ts,
 * api/onboardings/onboarding-updates.together.ts): PATCHes that arrive at once go in one
 * transaction, and each keeps every promise of a PATCH made alone. On both engines (npm test
 * runs this suite on SQLite and PostgreSQL).
 */
const ADMIN_TOKEN = "admin-token-for-the-update-batch-suite";
const ROUTE = "/api/v1/onboardings/:onboarding_ref";
let t: TestApp;
let acme: string;
let globex: string;
beforeAll(async () => {
  t = await createTestApp({ adminToken: ADMIN_TOKEN });
  acme = (await t.call("POST", "/api/v1/customers", { body: { name: "Acme Corp" } })).body.id;
  globex = (await t.call("POST", "/api/v1/customers", { body: { name: "Globex Corp" }, key: t.keys.other })).body.id;
});
afterAll(() => t.close());

const onboarding = async (customer: string, key?: string) => (await t.call("POST", "/api/v1/onboardings", { body: { customer_id: customer }, key })).body;
const patch = (ref: string | number, body: unknown, key?: string) => t.call("PATCH", `/api/v1/onboardings/${ref}`, { body, key });

async function batchCounts(): Promise<{ batches: number; together: number; alone: number }> {
  const text = (await t.call("GET", "/metrics", { key: null, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text;
  const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? 0);
  const route = ROUTE.replaceAll("/", "\\/");
  return {
    batches: value(new RegExp(`^change_batches_total\\{route="${route}"\\} (\\d+)`, "m")),
    together: value(new RegExp(`^batched_changes_total\\{route="${route}",made="together"\\} (\\d+)`, "m")),
    alone: value(new RegExp(`^batched_changes_total\\{route="${route}",made="alone"\\} (\\d+)`, "m")),
  };
}

describe("onboardings updated together", () => {
  test("PATCHes at once from two workspaces, several of one onboarding: fewer transactions than requests, each applied in turn, every record written once", async () => {
    const mine = await Promise.all(Array.from({ length: 8 }, () => onboarding(acme)));
    const theirs = await Promise.all(Array.from({ length: 4 }, () => onboarding(globex, t.keys.other)));
    const chained = mine[0].id;
    const before = await batchCounts();
    const transitionsBefore = await t.count("phase_transitions");
    const timelineBefore = await t.count("timeline_events");
    const visitsBefore = Number((await t.query<{ n: unknown }>("SELECT coalesce(sum(visits), 0) AS n FROM phase_visit_months"))[0]!.n);

    // One onboarding moved three times in the same instant's requests; the others once each, with other fields.
    const responses = await Promise.all([
      patch(chained, { phase: "program_design" }),
      patch(chained, { phase: "program_buildout", notes: "second" }),
      patch(chained, { phase: "review" }),
      ...mine.slice(1).map((o, i) => patch(o.id, { phase: "program_design", state: i % 2 ? "waiting" : "active", waiting_on_customer: i % 2 === 1 })),
      ...theirs.map((o) => patch(o.id, { phase: "internal_qa", csm_id: "usr_csm_1" }, t.keys.other)),
      patch(mine[1].id, { notes: "no phase" }),
    ]);
    expect(responses.map((r) => r.status)).toEqual(Array(responses.length).fill(200));
    const after = await batchCounts();
    expect(after.together - before.together).toBe(responses.length);
    expect(after.batches - before.batches).toBeLessThan(responses.length);

    // The chain: each answer is what the one before made, changed by its own body.
    expect(responses.slice(0, 3).map((r) => r.body.phase)).toEqual(["program_design", "program_buildout", "review"]);
    expect(responses[2]!.body.notes).toBe("second");
    const final = (await t.call("GET", `/api/v1/onboardings/${chained}`)).body;
    expect(final).toEqual(responses[2]!.body);
    const chain = await t.query<{ from_phase: string; to_phase: string; at: unknown }>("SELECT from_phase, to_phase, at FROM phase_transitions WHERE onboarding_id = $1 ORDER BY at", chained);
    expect(chain.map((r) => `${r.from_phase}>${r.to_phase}`)).toEqual(["before_getting_started>program_design", "program_design>program_buildout", "program_buildout>review"]);
    const updatedAt = responses.slice(0, 3).map((r) => Date.parse(r.body.updated_at));
    expect(updatedAt[0]! <= updatedAt[1]! && updatedAt[1]! <= updatedAt[2]!).toBe(true);

    // Every answer equals a later read, but the chain's first two (overtaken within the batch).
    for (const r of responses.slice(3, -1)) {
      const read = (await t.call("GET", `/api/v1/onboardings/${r.body.id}`, { key: theirs.some((o) => o.id === r.body.id) ? t.keys.other : undefined })).body;
      if (r.body.id !== mine[1].id) expect(read).toEqual(r.body);
    }
    const last = responses.at(-1)!.body;
    expect(last.notes).toBe("no phase");
    expect(last.phase).toBe("program_design"); // applied after its onboarding's phase change in the same batch

    // One transition and one timeline event per phase change, one visit in the monthly aggregate for each.
    const changes = 3 + 7 + 4;
    expect(await t.count("phase_transitions")).toBe(transitionsBefore + changes);
    expect(await t.count("timeline_events")).toBe(timelineBefore + changes);
    expect(Number((await t.query<{ n: unknown }>("SELECT sum(visits) AS n FROM phase_visit_months"))[0]!.n)).toBe(visitsBefore + changes);

    // The feed: each workspace's positions without a gap; the chain's events in its order.
    const positions = await t.query<{ org_id: string; position: unknown }>("SELECT org_id, position FROM events ORDER BY org_id, position");
    const byOrg = new Map<string, number[]>();
    for (const row of positions) byOrg.set(row.org_id, [...(byOrg.get(row.org_id) ?? []), Number(row.position)]);
    for (const list of byOrg.values()) expect(list).toEqual(list.map((_, i) => i + 1));
    const feed = (await t.call("GET", `/api/v1/events?type=onboarding.phase_changed&limit=100`)).body.data as { data: { object: { id: string; phase: string }; previous_attributes: { phase: string } } }[];
    const ofChain = feed.filter((e) => e.data.object.id === chained).map((e) => `${e.data.previous_attributes.phase}>${e.data.object.phase}`);
    expect(ofChain).toEqual(["before_getting_started>program_design", "program_design>program_buildout", "program_buildout>review"]);

    // Each request's activity entry, written with the change.
    const entries = new Set((await t.query<{ request_id: string }>("SELECT request_id FROM activity_entries WHERE method = 'PATCH' AND status = 200")).map((r) => r.request_id));
    for (const r of responses) expect(entries.has(r.headers.get("request-id")!)).toBe(true);
  });

  test("in one batch, each request gets its own answer: a missing onboarding, another workspace's, a display id, a launch, a body that changes nothing", async () => {
    const a = await onboarding(acme);
    const b = await onboarding(acme);
    const foreign = await onboarding(globex, t.keys.other);
    const fine = await Promise.all(Array.from({ length: 6 }, () => onboarding(acme)));
    const eventsBefore = await t.count("events");
    const before = await batchCounts();
    const [missing, other, byDisplayId, launch, unchanged, ...rest] = await Promise.all([
      patch("onb_00000000000000000000000000", { phase: "program_design" }),
      patch(foreign.id, { phase: "program_design" }),
      patch(a.display_id, { phase: "program_design" }),
      patch(b.id, { phase: "launch" }),
      patch(fine[0].id, { phase: "before_getting_started" }),
      ...fine.slice(1).map((o) => patch(o.id, { phase: "review" })),
    ]);
    expectError(missing!, 404, "onboarding_not_found");
    expectError(other!, 404, "onboarding_not_found");
    expect(byDisplayId!.status).toBe(200);
    expect(byDisplayId!.body.phase).toBe("program_design");
    expect(launch!.status).toBe(200);
    expect(unchanged!.status).toBe(200);
    expect(unchanged!.body).toEqual(fine[0]);
    expect(rest.map((r) => r.body.phase)).toEqual(Array(5).fill("review"));
    // The foreign onboarding is untouched; the launch queued its automations (alone, as ever).
    expect((await t.call("GET", `/api/v1/onboardings/${foreign.id}`, { key: t.keys.other })).body.phase).toBe("before_getting_started");
    expect(await t.count("outbox", `name = 'launch.slack_dm' AND payload LIKE '%${b.id}%'`)).toBe(1);
    // Three events for the display id's change and the launch (updated + phase_changed each), and two for each of the rest.
    expect(await t.count("events")).toBe(eventsBefore + 2 + 2 + 5 * 2);
    const after = await batchCounts();
    expect(after.alone - before.alone).toBeGreaterThanOrEqual(2); // the missing and the foreign left their batch
  });

  test("a webhook endpoint gets the live updates of a batch and none of the test key's", async () => {
    const hook = await t.call("POST", "/api/v1/webhook_endpoints", { body: { url: "https://hooks.valid.example/in", enabled_events: ["onboarding.phase_changed"] } });
    expect(hook.status).toBe(201);
    const testCustomer = (await t.call("POST", "/api/v1/customers", { body: { name: "Test Mode Co" }, key: t.keys.test })).body.id;
    const live = await Promise.all(Array.from({ length: 6 }, () => onboarding(acme)));
    const testMode = await Promise.all(Array.from({ length: 4 }, () => onboarding(testCustomer, t.keys.test)));
    const deliveriesBefore = await t.count("outbox", "name = 'webhook.deliver'");
    const responses = await Promise.all([
      ...live.map((o) => patch(o.id, { phase: "program_design", notes: "live" })),
      ...testMode.map((o) => patch(o.id, { phase: "program_design" }, t.keys.test)),
    ]);
    expect(responses.map((r) => r.status)).toEqual(Array(10).fill(200));
    // One delivery per live phase change (the endpoint takes phase_changed only), none for the test key's.
    expect(await t.count("outbox", "name = 'webhook.deliver'")).toBe(deliveriesBefore + 6);
    await t.call("DELETE", `/api/v1/webhook_endpoints/${hook.body.id}`);
  });
});
