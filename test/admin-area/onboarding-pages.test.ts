/**
 * The admin area's onboarding pages over the real app and migrations, with a manual clock, on
 * the engine TEST_ENGINE names: the overview (pipeline, overdue, waiting, launches of the month
 * and their unknown CSMs), the list and its filters and pages, one onboarding (people marked,
 * timeline, chart) and the SLA report; each workspace sees only its own.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock } from "../../shared/clock.ts";
import { DEFAULT_RATE_LIMITS } from "../../api/limits/request-limits.ts";
import { adminClient, PASSWORD, signedInAdmin, type AdminClient } from "../support/admin-client.ts";
import { createTestApp, type TestApp } from "../support/test-app.ts";

// Mid-July 2026: "this month" is July.
const clock = new ManualClock(Date.UTC(2026, 6, 10, 9, 0, 0) * 1000);
const HOUR = 3600;
const later = (hours: number) => clock.advanceSeconds(hours * HOUR);

let t: TestApp;
let ada: AdminClient;
let adaId: string;
let globex: AdminClient;
const ids: Record<string, string> = {};
const numbers: Record<string, number> = {};

type Body = Record<string, unknown>;
async function call(method: string, path: string, body?: Body, key?: string) {
  const answer = await t.call(method, path, { body, key });
  if (answer.status >= 300) throw new Error(`${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body;
}

beforeAll(async () => {
  t = await createTestApp({ clock, rateLimits: { ...DEFAULT_RATE_LIMITS, perTier: { default: 1_000_000, paid: 1_000_000 } } });
  const signed = await signedInAdmin(t.app, t.database, "acme", "ada@acme.example", clock);
  adaId = signed.user.id;

  const acmeCo = await call("POST", "/api/v1/customers", { name: "<b>Bold</b> Co" });
  const initech = await call("POST", "/api/v1/customers", { name: "Initech" });
  ids.customer = acmeCo.id;
  ids.initech = initech.id;
  numbers.initech = initech.display_id;
  const onboarding = async (name: string, body: Body, key?: string) => {
    const created = await call("POST", "/api/v1/onboardings", { customer_id: body.customer_id ?? acmeCo.id, ...body }, key);
    ids[name] = created.id;
    numbers[name] = created.display_id;
  };
  // Overdue: target passed, still in review.
  await onboarding("late", { phase: "review", target_launch_date: "2026-07-01T00:00:00+02:00", csm_id: adaId });
  // Target passed too, but launched: not overdue.
  await onboarding("launchedLate", { target_launch_date: "2026-07-05T00:00:00Z", csm_id: "crm-42" });
  // Waiting on the customer since now.
  await onboarding("waiting", { phase: "program_design", csm_id: "crm-77", se_id: adaId });
  await call("PATCH", `/api/v1/onboardings/${ids.waiting}`, { state: "waiting", waiting_on_customer: true });
  // Launched on time, with a CSM who is a user.
  await onboarding("onTime", { target_launch_date: "2026-08-01T00:00:00Z", csm_id: adaId, customer_id: initech.id });
  // Another workspace's, which no acme page may show.
  const globexCustomer = await call("POST", "/api/v1/customers", { name: "Globex Secret Customer" }, t.keys.other);
  await onboarding("globex", { customer_id: globexCustomer.id, phase: "internal_qa", target_launch_date: "2026-01-01T00:00:00Z" }, t.keys.other);

  later(29);
  await call("PATCH", `/api/v1/onboardings/${ids.launchedLate}`, { phase: "launch" });
  await call("PATCH", `/api/v1/onboardings/${ids.onTime}`, { phase: "internal_qa" });
  later(2);
  await call("PATCH", `/api/v1/onboardings/${ids.onTime}`, { phase: "launch" }, t.keys.test);
  await call("PATCH", `/api/v1/onboardings/${ids.late}`, { state: "at_risk" });
  later(13);
  // Signed in now: a session idle for the 44 hours above would have ended.
  ada = adminClient(t.app);
  await ada.signIn("ada@acme.example", PASSWORD);
  globex = (await signedInAdmin(t.app, t.database, "globex", "gus@globex.example", clock)).client;
});
afterAll(async () => {
  await t.close();
});

const tableRows = (html: string, label: string) => {
  const region = new RegExp(`aria-label="${label}"[\\s\\S]*?</table>`).exec(html)?.[0] ?? "";
  return region.split("<tr>").slice(2);
};

describe("the overview", () => {
  test("sign-in and /admin land on it", async () => {
    const fresh = adminClient(t.app);
    const signIn = await fresh.signIn("ada@acme.example", PASSWORD);
    expect(signIn.location).toBe("/admin/overview");
    expect((await fresh.get("/admin")).location).toBe("/admin/overview");
  });

  test("pipeline, overdue, waiting and launches of the month, of this workspace only", async () => {
    const page = await ada.get("/admin/overview");
    expect(page.status).toBe(200);
    expect(page.text).toContain('<span class="tile-number" data-testid="overdue-count">1</span>');
    expect(page.text).toContain('<span class="tile-number" data-testid="waiting-count">1</span>');
    expect(page.text).toContain('<span class="tile-number" data-testid="launch-count">2</span> launched in July 2026');

    // Pipeline: review × at risk holds the late one, and links to the filtered list.
    expect(page.text).toContain('<a href="/admin/onboardings?phase=review&amp;state=at_risk">1</a>');
    expect(page.text).toContain('<a href="/admin/onboardings?phase=launch">2</a>');

    const overdue = tableRows(page.text, "Overdue onboardings");
    expect(overdue).toHaveLength(1);
    expect(overdue[0]).toContain(`#${numbers.late}`);
    // The target was 2026-06-30T22:00Z; it is now 2026-07-12T05:00Z.
    expect(overdue[0]).toContain("11.3 d");

    const waiting = tableRows(page.text, "Waiting on the customer");
    expect(waiting).toHaveLength(1);
    expect(waiting[0]).toContain(`#${numbers.waiting}`);
    expect(waiting[0]).toContain("1.8 d");
    expect(waiting[0]).toContain('data-testid="unknown-person"><code>crm-77</code>');

    // Launches: the test key's launch counts (it changed the data); one CSM is no user.
    const launches = tableRows(page.text, "Launches this month");
    expect(launches).toHaveLength(2);
    expect(launches[0]).toContain(`#${numbers.onTime}`);
    expect(launches[0]).toContain("on time");
    expect(launches[0]).toContain(">ada</span>");
    expect(launches[1]).toContain(`#${numbers.launchedLate}`);
    // Target 2026-07-05T00:00Z, launched 2026-07-11T14:00Z.
    expect(launches[1]).toContain("6.6 d late");
    expect(launches[1]).toContain('data-testid="launch-csm-unknown"');
    expect(launches[1]).toContain("CSM unknown");
    expect(page.text).toContain('data-testid="unknown-csm-notice">One launch this month had no CSM who is a user');
    expect(page.text).toContain("1 on time, 1 late, 0 without a target date");

    expect(page.text).toContain("&lt;b&gt;Bold&lt;/b&gt; Co");
    expect(page.text).not.toContain("<b>Bold</b>");
    expect(page.text).not.toContain("Globex Secret Customer");

    const theirs = await globex.get("/admin/overview");
    expect(theirs.text).toContain('data-testid="overdue-count">1</span>');
    expect(theirs.text).toContain("Globex Secret Customer");
    expect(theirs.text).not.toContain("Bold");
    expect(theirs.text).toContain('data-testid="launch-count">0</span>');
  });
});

describe("the list", () => {
  const listed = async (query: string) => {
    const page = await ada.get(`/admin/onboardings${query}`);
    expect(page.status).toBe(200);
    return tableRows(page.text, "Onboardings");
  };

  test("filters by phase, state, CSM (a user, none, an unknown id, a free id) and customer", async () => {
    expect(await listed("")).toHaveLength(4);
    expect(await listed("?phase=launch")).toHaveLength(2);
    expect(await listed("?state=waiting")).toHaveLength(1);
    expect(await listed("?phase=review&state=at_risk")).toHaveLength(1);
    expect(await listed(`?csm=${adaId}`)).toHaveLength(2);
    expect(await listed("?csm=(none)")).toHaveLength(0);
    const unknown = await listed("?csm=(unknown)");
    expect(unknown).toHaveLength(2);
    expect(unknown.join("")).toContain("crm-42");
    expect(unknown.join("")).toContain("crm-77");
    expect(await listed("?csm=crm-42")).toHaveLength(1);
    expect(await listed(`?customer=${numbers.initech}`)).toHaveLength(1);
    expect(await listed(`?customer=${ids.initech}&phase=launch`)).toHaveLength(1);
    // A phase that is no phase is no filter; an unknown customer says so.
    expect(await listed("?phase=nonsense")).toHaveLength(4);
    const missing = await ada.get("/admin/onboardings?customer=cus_nope");
    expect(missing.status).toBe(404);
    expect(missing.text).toContain("No such customer: &#39;cus_nope&#39;.");
  });

  test("time in the current phase: the clock stops while waiting on the customer", async () => {
    const [waiting] = await listed("?state=waiting");
    expect(waiting).toContain("0 min <span class=\"muted\">(clock suspended)</span>");
    const [late] = await listed("?phase=review");
    expect(late).toContain("1.8 d");
  });

  test("pages of 50, newest first, with an “Older entries” link that keeps the filters", async () => {
    for (let i = 0; i < 51; i++) await call("POST", "/api/v1/onboardings", { customer_id: ids.initech, phase: "program_buildout" });
    const first = await ada.get(`/admin/onboardings?phase=program_buildout`);
    expect(tableRows(first.text, "Onboardings")).toHaveLength(50);
    const older = /href="(\/admin\/onboardings\?phase=program_buildout&amp;before=\d+)"/.exec(first.text)![1]!.replaceAll("&amp;", "&");
    const second = await ada.get(older);
    expect(tableRows(second.text, "Onboardings")).toHaveLength(1);
    expect(second.text).not.toContain("Older entries");
  });

  test("another workspace's list holds only its own", async () => {
    const page = await globex.get("/admin/onboardings");
    const rows = tableRows(page.text, "Onboardings");
    expect(rows).toHaveLength(1);
    expect(rows[0]).toContain("Globex Secret Customer");
  });
});

describe("one onboarding", () => {
  test("its fields with people marked, its timeline and its chart of time per phase", async () => {
    await call("PATCH", `/api/v1/onboardings/${ids.waiting}`, { waiting_on_customer: false, state: "active" });
    later(1);
    await call("PATCH", `/api/v1/onboardings/${ids.waiting}`, { phase: "review" });
    const page = await ada.get(`/admin/onboardings/${ids.waiting}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<h1>Onboarding #${numbers.waiting} · &lt;b&gt;Bold&lt;/b&gt; Co</h1>`);
    // The CSM is an id of the integrator's; the solutions engineer a user.
    expect(page.text).toMatch(/<dt>CSM<\/dt><dd><span class="unknown-person" data-testid="unknown-person"><code>crm-77<\/code>/);
    expect(page.text).toMatch(/<dt>Solutions engineer<\/dt><dd><span title="usr_[^"]+">ada</);

    const timeline = tableRows(page.text, "Timeline").join("\n");
    expect(timeline).toContain("Created in <strong>Program design</strong>");
    expect(timeline).toContain("State: Waiting → <strong>Active</strong>");
    expect(timeline).toContain("No longer waiting on the customer");
    expect(timeline).toContain("Phase: Program design → <strong>Review</strong>");
    expect(timeline).toContain("crm-sync");

    // Program design: 44 h waiting on the customer (suspended), then 1 h active.
    const chart = /<figure class="chart" data-testid="chart-phase-time">[\s\S]*?<\/figure>/.exec(page.text)![0];
    expect(chart).toContain('role="img"');
    expect(chart).toContain("<title id=\"phase-time-title\">Time per phase</title>");
    expect(chart).toContain("1.0 h active + 1.8 d suspended");
    expect(chart).toMatch(/class="bar s-active"[^>]*width="[\d.]+"/);
    expect(chart).toMatch(/class="bar s-suspended"/);
    expect(chart).toContain("<th scope=\"row\">Program design</th>");
  });

  test("found by its number too; another workspace's, a deleted one and nonsense are not found", async () => {
    expect((await ada.get(`/admin/onboardings/${numbers.late}`)).text).toContain(`Onboarding #${numbers.late}`);
    expect((await ada.get(`/admin/onboardings/${ids.globex}`)).status).toBe(404);
    expect((await globex.get(`/admin/onboardings/${ids.late}`)).status).toBe(404);
    expect((await ada.get("/admin/onboardings/%3Cscript%3E")).status).toBe(404);
    const gone = await call("POST", "/api/v1/onboardings", { customer_id: ids.customer });
    await call("DELETE", `/api/v1/onboardings/${gone.id}`);
    expect((await ada.get(`/admin/onboardings/${gone.id}`)).status).toBe(404);
  });
});

describe("the SLA report", () => {
  test("median and p90 per phase, on-time rate and mean delay, as charts and a table", async () => {
    const page = await ada.get("/admin/sla");
    expect(page.status).toBe(200);
    // Default period: the last 90 days up to today.
    expect(page.text).toContain('name="from" type="date" value="2026-04-14"');
    expect(page.text).toContain('name="to" type="date" value="2026-07-12"');
    const chart = /data-testid="chart-sla-phases">[\s\S]*?<\/figure>/.exec(page.text)![0];
    expect(chart).toContain("<th scope=\"row\">Before getting started</th>");
    // Two visits of 29 hours each.
    expect(chart).toContain("median 1.2 d");
    expect(chart).toContain("p90 1.2 d · 2 visits");
    expect(page.text).toContain('data-testid="on-time-rate">50%');
    expect(page.text).toContain('data-testid="mean-delay">6.6 d');
    expect(page.text).toContain('data-testid="chart-sla-launches"');
  });

  test("one customer, a period without visits, bad input", async () => {
    const one = await ada.get(`/admin/sla?customer=${numbers.initech}`);
    expect(one.text).toContain('data-testid="on-time-rate">100%');
    const empty = await ada.get("/admin/sla?from=2025-01-01&to=2025-01-31");
    expect(empty.text).toContain("No phase visit ended in this period.");
    expect((await ada.get("/admin/sla?from=2026-13-01")).status).toBe(400);
    expect((await ada.get("/admin/sla?from=2026-07-10&to=2026-07-01")).status).toBe(400);
    const missing = await ada.get("/admin/sla?customer=cus_nope");
    expect(missing.status).toBe(404);
    expect(missing.text).toContain("No such customer");
  });

  test("another workspace's report counts only its own", async () => {
    const page = await globex.get("/admin/sla");
    expect(page.text).toContain("No phase visit ended in this period.");
  });
});
