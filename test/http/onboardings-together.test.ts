import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { entriesOfPage } from "../../shared/db/activity.store.ts";
import { storedRequestIds } from "../support/activity.ts";
import { createTestApp, expectError, type TestApp } from "../support/test-app.ts";

/**
 * Creates and PATCHes of onboardings made together (api/http/together.ts): requests that
 * arrive at once go in one transaction, and each keeps every promise of a request made alone.
 * On both engines (npm test runs this suite on SQLite and PostgreSQL).
 */
const ADMIN_TOKEN = "admin-token-for-the-batch-suite";
let t: TestApp;
let acme: string;
let globex: string;
beforeAll(async () => {
  t = await createTestApp({ adminToken: ADMIN_TOKEN });
  acme = (await t.call("POST", "/api/v1/customers", { body: { name: "Acme Corp" } })).body.id;
  globex = (await t.call("POST", "/api/v1/customers", { body: { name: "Globex Corp" }, key: t.keys.other })).body.id;
});
afterAll(() => t.close());

const create = (body: unknown, options: { key?: string; idempotencyKey?: string } = {}) =>
  t.call("POST", "/api/v1/onboardings", { body, key: options.key, headers: options.idempotencyKey ? { "idempotency-key": options.idempotencyKey } : {} });

/**
 * The most of these responses' activity entries one page holds: a batch writes its entries as
 * pages, one row per workspace (api/http/together.ts), not a row each.
 */
async function mostInOnePage(responses: readonly { headers: Headers }[]): Promise<number> {
  const ids = new Set(responses.map((r) => r.headers.get("request-id")!));
  const pages = await t.query<{ org_id: string; entries: string }>("SELECT org_id, entries FROM activity_pages");
  return Math.max(0, ...pages.map((page) => entriesOfPage(page.org_id, page.entries).filter((e) => ids.has(e.request_id)).length));
}

/** The batch counters of /metrics for a route: batches committed, and requests made together or alone. */
async function batchCounts(route = "/api/v1/onboardings", app: TestApp = t): Promise<{ batches: number; together: number; alone: number }> {
  const text = (await app.call("GET", "/metrics", { key: null, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text;
  const value = (metric: string, labels: string) => {
    const line = text.split("\n").find((l) => l.startsWith(`${metric}{route="${route}"${labels}} `));
    return Number(line?.split(" ")[1] ?? 0);
  };
  return {
    batches: value("change_batches_total", ""),
    together: value("batched_changes_total", ',made="together"'),
    alone: value("batched_changes_total", ',made="alone"'),
  };
}

describe("onboardings created together", () => {
  test("30 creates at once from two workspaces: fewer transactions than creates, and each workspace's display ids, instants and feed positions in a row", async () => {
    const before = await batchCounts();
    const responses = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        i % 3 === 2 ? create({ customer_id: globex, notes: `g${i}` }, { key: t.keys.other, idempotencyKey: `g-${i}` }) : create({ customer_id: acme, notes: `a${i}` }, i % 2 ? { idempotencyKey: `a-${i}` } : {}),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(30).fill(201));
    const after = await batchCounts();
    expect(after.together - before.together).toBe(30);
    expect(after.batches - before.batches).toBeLessThan(30);

    for (const [customer, count] of [[acme, 20], [globex, 10]] as const) {
      const mine = responses.map((r) => r.body).filter((b) => b.customer_id === customer).sort((a, b) => a.display_id - b.display_id);
      expect(mine.length).toBe(count);
      // Display ids continue the workspace's sequence with no gap, and created_at rises with them.
      for (let i = 1; i < mine.length; i++) {
        expect(mine[i].display_id).toBe(mine[i - 1].display_id + 1);
        expect(Date.parse(mine[i].created_at) >= Date.parse(mine[i - 1].created_at)).toBe(true);
      }
    }
    // Within a workspace, never the same created_at twice (the list's order and cursor rely on it).
    const createdAt = await t.query<{ org_id: string; created_at: unknown }>("SELECT org_id, created_at FROM onboardings");
    expect(new Set(createdAt.map((r) => `${r.org_id} ${r.created_at}`)).size).toBe(createdAt.length);

    // One onboarding.created event per create, carrying its request, at the workspace's next positions without a gap.
    for (const key of [t.keys.live, t.keys.other]) {
      const feed = (await t.call("GET", "/api/v1/events?type=onboarding.created&limit=100", { key })).body.data as { data: { object: { id: string } }; request: { id: string } }[];
      const ids = new Set(responses.map((r) => r.body.id));
      expect(feed.filter((e) => ids.has(e.data.object.id)).length).toBe(key === t.keys.live ? 20 : 10);
    }
    const positions = await t.query<{ org_id: string; position: unknown }>("SELECT org_id, position FROM events ORDER BY org_id, position");
    const byOrg = new Map<string, number[]>();
    for (const row of positions) byOrg.set(row.org_id, [...(byOrg.get(row.org_id) ?? []), Number(row.position)]);
    for (const list of byOrg.values()) expect(list).toEqual(list.map((_, i) => i + 1));

    // Each request's activity entry, written with the change; each keyed response stored and replayed byte for byte.
    const entries = await storedRequestIds(t, (e) => e.method === "POST" && e.status === 201);
    for (const r of responses) expect(entries.has(r.headers.get("request-id")!)).toBe(true);
    expect(await mostInOnePage(responses)).toBeGreaterThan(1);
    const replay = await create({ customer_id: acme, notes: "a1" }, { idempotencyKey: "a-1" });
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotent-replay")).toBe("true");
    expect(replay.text).toBe(responses[1]!.text);
  });

  test("in one batch, each request gets its own answer: a missing customer, another workspace's, a used key, a display id; the rest are created", async () => {
    const used = await create({ customer_id: acme, notes: "first" }, { idempotencyKey: "used-key" });
    const customer = (await t.call("GET", `/api/v1/customers/${acme}`)).body;
    const onboardingsBefore = await t.count("onboardings");
    const eventsBefore = await t.count("events");
    const before = await batchCounts();
    const [missing, foreign, replayed, reused, byDisplayId, ...fine] = await Promise.all([
      create({ customer_id: "cus_00000000000000000000000000" }, { idempotencyKey: "missing" }),
      create({ customer_id: globex }),
      create({ customer_id: acme, notes: "first" }, { idempotencyKey: "used-key" }),
      create({ customer_id: acme, notes: "another body" }, { idempotencyKey: "used-key-2" }).then(() => create({ customer_id: acme, notes: "a third" }, { idempotencyKey: "used-key-2" })),
      create({ customer_id: String(customer.display_id), notes: "by display id" }),
      ...Array.from({ length: 8 }, (_, i) => create({ customer_id: acme, notes: `fine ${i}` }, { idempotencyKey: `fine-${i}` })),
    ]);
    expectError(missing!, 404, "customer_not_found", "customer_id");
    expectError(foreign!, 404, "customer_not_found", "customer_id");
    expect(replayed!.status).toBe(201);
    expect(replayed!.text).toBe(used.text);
    expectError(reused!, 409, "idempotency_key_reused");
    expect(byDisplayId!.status).toBe(201);
    expect(byDisplayId!.body.customer_id).toBe(acme);
    expect(fine.map((r) => r.status)).toEqual(Array(8).fill(201));

    // Nothing of the failed requests was written; the rest wrote one onboarding and one event each.
    expect(await t.count("onboardings")).toBe(onboardingsBefore + 10);
    expect(await t.count("events")).toBe(eventsBefore + 10);
    expect(await t.count("idempotency_keys", "key = 'missing'")).toBe(0);
    const after = await batchCounts();
    expect(after.alone - before.alone).toBeGreaterThanOrEqual(3); // the missing, the foreign and the replay left their batch
    // The display ids stayed in a row: the batches the leavers rolled back gave theirs back.
    const ids = (await t.query<{ display_id: unknown }>("SELECT display_id FROM onboardings WHERE org_id = (SELECT org_id FROM customers WHERE id = $1) ORDER BY display_id", acme)).map((r) => Number(r.display_id));
    expect(ids).toEqual(ids.map((_, i) => i + 1));
  });

  test("a webhook endpoint gets the live creates of a batch and none of the test key's", async () => {
    const hook = await t.call("POST", "/api/v1/webhook_endpoints", { body: { url: "https://hooks.valid.example/in", enabled_events: ["onboarding.created"] } });
    expect(hook.status).toBe(201);
    const testCustomer = (await t.call("POST", "/api/v1/customers", { body: { name: "Test Mode Co" }, key: t.keys.test })).body.id;
    const deliveriesBefore = await t.count("outbox", "name = 'webhook.deliver'");
    const responses = await Promise.all([
      ...Array.from({ length: 6 }, () => create({ customer_id: acme })),
      ...Array.from({ length: 4 }, () => create({ customer_id: testCustomer }, { key: t.keys.test })),
    ]);
    expect(responses.map((r) => r.status)).toEqual(Array(10).fill(201));
    expect(responses.slice(6).every((r) => r.body.id.startsWith("onb_"))).toBe(true);
    expect(await t.count("outbox", "name = 'webhook.deliver'")).toBe(deliveriesBefore + 6);
    await t.call("DELETE", `/api/v1/webhook_endpoints/${hook.body.id}`);
  });
});

const PATCH_ROUTE = "/api/v1/onboardings/:onboarding_ref";
const onboarding = async (customer: string, key?: string) => (await t.call("POST", "/api/v1/onboardings", { body: { customer_id: customer }, key })).body;
const patch = (ref: string | number, body: unknown, key?: string) => t.call("PATCH", `/api/v1/onboardings/${ref}`, { body, key });

describe("onboardings updated together", () => {
  test("PATCHes at once from two workspaces, several of one onboarding: fewer transactions than requests, each applied in turn, every record written once", async () => {
    const mine = await Promise.all(Array.from({ length: 8 }, () => onboarding(acme)));
    const theirs = await Promise.all(Array.from({ length: 4 }, () => onboarding(globex, t.keys.other)));
    const chained = mine[0].id;
    const before = await batchCounts(PATCH_ROUTE);
    const transitionsBefore = await t.count("phase_transitions");
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
    const after = await batchCounts(PATCH_ROUTE);
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

    // One transition (its customer's timeline entry) per phase change, one visit in the monthly aggregate for each.
    const changes = 3 + 7 + 4;
    expect(await t.count("phase_transitions")).toBe(transitionsBefore + changes);
    expect(await t.count("timeline_events")).toBe(0);
    expect(Number((await t.query<{ n: unknown }>("SELECT sum(visits) AS n FROM phase_visit_months"))[0]!.n)).toBe(visitsBefore + changes);
    // The aggregate is the transitions grouped as the report groups them (several visits of a
    // batch share a row: in this instant, most end within the same second's bucket).
    const grouped = async (text: string) =>
      (await t.query<{ org_id: string; phase: string; bucket: unknown; visits: unknown; secs: unknown }>(text)).map((r) => `${r.org_id} ${r.phase} ${Number(r.bucket)} ${Number(r.visits)} ${Number(r.secs).toFixed(3)}`);
    const fromTransitions = await grouped(
      `SELECT org_id, from_phase AS phase, CASE WHEN active_seconds < 1 THEN 0 ELSE 1 + CAST(floor(ln(active_seconds) / ln(1.02)) AS INTEGER) END AS bucket,
         COUNT(*) AS visits, sum(active_seconds) AS secs FROM phase_transitions GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
    );
    expect(await grouped("SELECT org_id, phase, bucket, sum(visits) AS visits, sum(active_seconds) AS secs FROM phase_visit_months GROUP BY 1, 2, 3 ORDER BY 1, 2, 3")).toEqual(fromTransitions);
    expect(fromTransitions.some((row) => Number(row.split(" ")[3]) > 1)).toBe(true);

    // The feed: each workspace's positions without a gap; the chain's events in its order.
    const positions = await t.query<{ org_id: string; position: unknown }>("SELECT org_id, position FROM events ORDER BY org_id, position");
    const byOrg = new Map<string, number[]>();
    for (const row of positions) byOrg.set(row.org_id, [...(byOrg.get(row.org_id) ?? []), Number(row.position)]);
    for (const list of byOrg.values()) expect(list).toEqual(list.map((_, i) => i + 1));
    const feed = (await t.call("GET", `/api/v1/events?type=onboarding.phase_changed&limit=100`)).body.data as { data: { object: { id: string; phase: string }; previous_attributes: { phase: string } } }[];
    const ofChain = feed.filter((e) => e.data.object.id === chained).map((e) => `${e.data.previous_attributes.phase}>${e.data.object.phase}`);
    expect(ofChain).toEqual(["before_getting_started>program_design", "program_design>program_buildout", "program_buildout>review"]);

    // Each request's activity entry, written with the change.
    const entries = await storedRequestIds(t, (e) => e.method === "PATCH" && e.status === 200);
    for (const r of responses) expect(entries.has(r.headers.get("request-id")!)).toBe(true);
    expect(await mostInOnePage(responses)).toBeGreaterThan(1);
  });

  test("in one batch, each request gets its own answer: a missing onboarding, another workspace's, a display id, a launch, a body that changes nothing", async () => {
    const a = await onboarding(acme);
    const b = await onboarding(acme);
    const foreign = await onboarding(globex, t.keys.other);
    const fine = await Promise.all(Array.from({ length: 6 }, () => onboarding(acme)));
    const eventsBefore = await t.count("events");
    const before = await batchCounts(PATCH_ROUTE);
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
    const after = await batchCounts(PATCH_ROUTE);
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

describe("the next batch gathers the clients the last one answered", () => {
  // A window long enough that no machine's pause ends it in these tests: they count batches, not time.
  let g: TestApp;
  let customer: string;
  beforeAll(async () => {
    g = await createTestApp({ adminToken: ADMIN_TOKEN, app: { batchGatherMs: 1000 } });
    customer = (await g.call("POST", "/api/v1/customers", { body: { name: "Initech" } })).body.id;
  });
  afterAll(() => g.close());

  test("eight clients, each sending its next create once the last is answered: a batch of all eight after another, never split", async () => {
    const before = await batchCounts("/api/v1/onboardings", g);
    const rounds = 6;
    const client = async (n: number) => {
      const made: { status: number; notes: string }[] = [];
      for (let round = 0; round < rounds; round++) {
        // Clients come back at different moments (their networks, their own work), not in one turn.
        if (round > 0) await Bun.sleep(n % 4);
        const r = await g.call("POST", "/api/v1/onboardings", { body: { customer_id: customer, notes: `c${n}r${round}` } });
        made.push({ status: r.status, notes: r.body.notes });
      }
      return made;
    };
    const answers = await Promise.all(Array.from({ length: 8 }, (_, n) => client(n)));
    answers.forEach((made, n) => expect(made).toEqual(Array.from({ length: rounds }, (_, round) => ({ status: 201, notes: `c${n}r${round}` }))));
    const after = await batchCounts("/api/v1/onboardings", g);
    expect(after.together - before.together).toBe(8 * rounds);
    // The first round's requests may arrive over a few turns and go in two batches; from then on the
    // eight are answered together and wait for each other.
    expect(after.batches - before.batches).toBeLessThanOrEqual(rounds + 1);
  });

  test("the gathering waits for no more than it expects: when fewer clients come back, those that did are answered", async () => {
    const four = await Promise.all(Array.from({ length: 4 }, () => g.call("POST", "/api/v1/onboardings", { body: { customer_id: customer } })));
    expect(four.map((r) => r.status)).toEqual([201, 201, 201, 201]);
    // Only one of the four clients comes back, and a PATCH (another route, its own batcher) meanwhile.
    const [again, patched] = await Promise.all([
      g.call("POST", "/api/v1/onboardings", { body: { customer_id: customer, notes: "alone" } }),
      g.call("PATCH", `/api/v1/onboardings/${four[0]!.body.id}`, { body: { phase: "program_design" } }),
    ]);
    expect([again.status, again.body.notes]).toEqual([201, "alone"]);
    expect([patched.status, patched.body.phase]).toEqual([200, "program_design"]);
    // A lone client afterwards is answered at once, and so on.
    for (let i = 0; i < 3; i++) expect((await g.call("POST", "/api/v1/onboardings", { body: { customer_id: customer } })).status).toBe(201);
  });
});

describe("onboardings read together", () => {
  test("GETs at once from two workspaces (one statement on PostgreSQL): each answers what it would alone, and never another workspace's onboarding", async () => {
    const made = async (customer: string, key?: string) => (await create({ customer_id: customer }, { key })).body;
    const mine = await Promise.all(Array.from({ length: 6 }, () => made(acme)));
    const theirs = await Promise.all(Array.from({ length: 4 }, () => made(globex, t.keys.other)));
    const gone = await made(acme);
    expect((await t.call("DELETE", `/api/v1/onboardings/${gone.id}`)).status).toBe(200);
    const get = (ref: string | number, key?: string) => t.call("GET", `/api/v1/onboardings/${ref}`, { key });
    const asked = [
      ...mine.map((o) => () => get(o.id)),
      ...theirs.map((o) => () => get(o.id, t.keys.other)),
      () => get(theirs[0].id), // another workspace's: read in the same statement, answered 404
      () => get(mine[0].id, t.keys.other),
      () => get(gone.id),
      () => get("onb_00000000000000000000000000"),
      () => get(mine[1].display_id), // by display id, in the same moment
    ];
    const together = await Promise.all(asked.map((ask) => ask()));
    const alone: Awaited<ReturnType<typeof get>>[] = [];
    for (const ask of asked) alone.push(await ask());
    expect(together.map((r) => r.status)).toEqual([...Array(10).fill(200), 404, 404, 404, 404, 200]);
    expect(together.map((r) => r.body)).toEqual(alone.map((r) => r.body));
    expect(together.slice(0, 6).map((r) => r.body)).toEqual(mine);
    expect(together.slice(6, 10).map((r) => r.body)).toEqual(theirs);
    expect(together[14]!.body).toEqual(mine[1]);
    for (const r of together.slice(10, 14)) expectError(r, 404, "onboarding_not_found");
  });
});
