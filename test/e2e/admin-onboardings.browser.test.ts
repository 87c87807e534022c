/**
 * The admin area's onboarding pages in headless Chromium, over the real app and migrations: a
 * workspace with two months of onboarding history (made through the API with a manual clock),
 * then an administrator signs in and lands on the overview, follows the pipeline into the
 * list, filters it, opens one onboarding and its chart, and reads the SLA report; another
 * workspace's administrator sees none of it. axe on every page, no console error, a screenshot
 * of each (docs/admin-area/ holds the ones the README shows).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { run } from "../../shared/db/flow.ts";
import { addUser } from "../../shared/workspaces.ts";
import { DEFAULT_RATE_LIMITS } from "../../api/limits/request-limits.ts";
import { inviteAdmin, invitePath, PASSWORD } from "../support/admin-client.ts";
import { launchChromium, screenshot, seriousAccessibilityViolations } from "../support/browser.ts";
import { createTestApp, ManualClock, type TestApp } from "../support/test-app.ts";

const STEP = 60_000;
const HOUR = 3600;
const DAY = 24 * HOUR;
// History starts 60 days ago and ends now, so sessions and "this month" are real ones.
const clock = new ManualClock((Date.now() - 60 * DAY * 1000) * 1000);
let t: TestApp;
let browser: Browser;
let base: string;
let page: Page;
const consoleErrors: string[] = [];
const onboardingIds: string[] = [];

type Body = Record<string, unknown>;
async function call(method: string, path: string, body?: Body, key?: string) {
  const answer = await t.call(method, path, { body, key });
  if (answer.status >= 300) throw new Error(`${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body;
}

const PATH = ["before_getting_started", "program_design", "review", "program_buildout", "internal_qa", "launch", "completed"];

/** One onboarding's story: when it starts (days into the history), days per phase, how many phase changes, its target (days after its start), its CSM, when it waits. */
interface Story {
  customer: string;
  start: number;
  pace: number;
  changes: number;
  target: number;
  csm: number;
  /** Waits on its customer through the second half of this phase change's run-up. */
  waitsBefore?: number;
  /** Still waiting on its customer since this day of the history. */
  waitingSince?: number;
  atRisk?: boolean;
}
const STORIES: Story[] = [
  { customer: "Northwind Traders", start: 0, pace: 3, changes: 6, target: 20, csm: 0 },
  { customer: "Initech", start: 2, pace: 4, changes: 5, target: 18, csm: 1, waitsBefore: 2 },
  { customer: "Umbrella Health", start: 5, pace: 6, changes: 5, target: 40, csm: 0 },
  { customer: "Stark Logistics", start: 8, pace: 6, changes: 4, target: 45, csm: 0, waitsBefore: 2 },
  { customer: "Wayne Foods", start: 12, pace: 5, changes: 5, target: 30, csm: 1, waitsBefore: 3 },
  { customer: "Hooli", start: 15, pace: 5, changes: 5, target: 20, csm: 2 },
  { customer: "Soylent", start: 18, pace: 6, changes: 3, target: 30, csm: 1, atRisk: true },
  { customer: "Vandelay Imports", start: 20, pace: 6, changes: 5, target: 35, csm: 0 },
  { customer: "Pied Piper", start: 30, pace: 7, changes: 2, target: 40, csm: 2, waitingSince: 55 },
  { customer: "Tyrell Corp", start: 40, pace: 8, changes: 1, target: 60, csm: 1 },
];

/** Runs every story's steps in time order on the one clock, ending at the present. */
async function seed(csmIds: string[]) {
  const origin = clock.nowMicros();
  const steps: { at: number; act: () => Promise<unknown> }[] = [];
  const patch = (i: number, body: Body) => () => call("PATCH", `/api/v1/onboardings/${onboardingIds[i]}`, body);
  STORIES.forEach((story, i) => {
    const start = story.start * DAY;
    const target = new Date((origin + (start + story.target * DAY) * 1_000_000) / 1000).toISOString().replace(/\.\d+Z$/, "Z");
    steps.push({
      at: start,
      act: async () => {
        const customer = await call("POST", "/api/v1/customers", { name: story.customer });
        const created = await call("POST", "/api/v1/onboardings", { customer_id: customer.id, target_launch_date: target, csm_id: csmIds[story.csm], se_id: i % 2 ? csmIds[0] : null });
        onboardingIds[i] = created.id;
      },
    });
    for (let p = 1; p <= story.changes; p++) {
      const at = start + p * story.pace * DAY;
      if (p === story.waitsBefore) {
        steps.push({ at: at - (story.pace * DAY) / 2, act: patch(i, { state: "waiting", waiting_on_customer: true }) });
        steps.push({ at: at - 0.1 * DAY, act: patch(i, { state: "active", waiting_on_customer: false }) });
      }
      steps.push({ at, act: patch(i, { phase: PATH[p] }) });
    }
    if (story.waitingSince !== undefined) steps.push({ at: story.waitingSince * DAY, act: patch(i, { state: "waiting", waiting_on_customer: true }) });
    if (story.atRisk) steps.push({ at: 50 * DAY, act: patch(i, { state: "at_risk" }) });
  });
  let now = 0;
  for (const step of steps.filter((s) => s.at < 59.5 * DAY).sort((a, b) => a.at - b.at)) {
    clock.advanceSeconds(step.at - now);
    now = step.at;
    await step.act();
  }
  clock.advanceSeconds(60 * DAY - now);
}

beforeAll(async () => {
  t = await createTestApp({ clock, rateLimits: { ...DEFAULT_RATE_LIMITS, perTier: { default: 1_000_000, paid: 1_000_000 } } });
  const casey = await run(addUser(t.database, clock, { workspaceSlug: "acme", name: "Casey Jones", email: "casey@acme.example", slackUserId: "U0CASEY1" }));
  const robin = await run(addUser(t.database, clock, { workspaceSlug: "acme", name: "Robin Park", email: "robin@acme.example" }));
  await seed([casey.id, robin.id, "hubspot-owner-4411"]);
  // Another workspace's onboarding, which no acme page may show.
  const theirs = await call("POST", "/api/v1/customers", { name: "Globex Secret Customer" }, t.keys.other);
  await call("POST", "/api/v1/onboardings", { customer_id: theirs.id }, t.keys.other);

  t.app.listen({ hostname: "127.0.0.1", port: 0, reusePort: false });
  base = `http://127.0.0.1:${t.app.server!.port}`;
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  page.setDefaultTimeout(10_000);
  // A failed asset is Chromium's console error "Failed to load resource" at the asset's own
  // address; a page answered 404 on purpose reports it at the page's address. (Playwright's
  // response events are not used: under Bun one can arrive for a request the client has not
  // bound yet, and its dispatcher throws into whichever test runs, as npm test saw once.)
  page.on("console", (message) => {
    if (message.type() !== "error") return;
    const failedLoad = message.text().startsWith("Failed to load resource");
    if (failedLoad && message.location().url === page.url()) return;
    consoleErrors.push(failedLoad ? `${message.text()} ${message.location().url}` : message.text());
  });
  const { invite } = await inviteAdmin(t.database, "acme", "ada@acme.example", { name: "Ada Admin", clock });
  await page.goto(`${base}${invitePath(invite.url)}`);
  await page.getByLabel("New password").fill(PASSWORD);
  await page.getByRole("button", { name: "Set password" }).click();
  await page.waitForURL(/\/admin\/login/);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.app.stop();
  await t?.close();
});

async function checkPage(name: string) {
  expect(await seriousAccessibilityViolations(page)).toEqual([]);
  await screenshot(page, name);
}
const rows = (region: string) => page.getByRole("region", { name: region }).locator("tbody tr");

describe("onboardings in the admin area", () => {
  test(
    "sign-in lands on the overview: pipeline, overdue, waiting, launches of the month",
    async () => {
      await page.getByLabel("E-mail").fill("ada@acme.example");
      await page.getByLabel("Password").fill(PASSWORD);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL(`${base}/admin/overview`);
      await expect(page.getByRole("heading", { name: "Overview", level: 1 }).isVisible()).resolves.toBe(true);
      const pipeline = page.getByTestId("pipeline");
      const total = await pipeline.locator("tbody tr td:last-child").allTextContents();
      expect(total.map(Number).reduce((a, b) => a + b, 0)).toBe(10);
      expect(await rows("Waiting on the customer").count()).toBeGreaterThan(0);
      expect(Number(await page.getByTestId("overdue-count").textContent())).toBe(await rows("Overdue onboardings").count());
      const content = await page.content();
      expect(content).not.toContain("Globex Secret Customer");
      await checkPage("overview");
    },
    STEP,
  );

  test(
    "the pipeline opens the list; the list filters by CSM, and marks ids that name no user",
    async () => {
      // The "All" count of a phase opens its onboardings.
      const link = page.getByTestId("pipeline").locator("tbody tr td:last-child a").first();
      const expected = Number(await link.textContent());
      await link.click();
      await page.waitForURL(/\/admin\/onboardings\?phase=/);
      expect(await rows("Onboardings").count()).toBe(expected);

      await page.goto(`${base}/admin/onboardings`);
      expect(await rows("Onboardings").count()).toBe(10);
      await page.getByLabel("CSM").selectOption({ label: "An id that is not a user" });
      await page.getByRole("button", { name: "Filter" }).click();
      await page.waitForURL(/csm=%28unknown%29/);
      const unknown = rows("Onboardings");
      expect(await unknown.count()).toBeGreaterThan(0);
      for (const text of await unknown.allTextContents()) expect(text).toContain("hubspot-owner-4411");
      await expect(page.getByTestId("unknown-person").first().isVisible()).resolves.toBe(true);

      await page.getByLabel("CSM").selectOption({ label: "Casey Jones" });
      await page.getByLabel("State").selectOption({ label: "Any state" });
      await page.getByRole("button", { name: "Filter" }).click();
      await page.waitForURL(/csm=usr_/);
      for (const text of await rows("Onboardings").allTextContents()) expect(text).toContain("Casey Jones");
      await checkPage("onboardings");
    },
    STEP,
  );

  test(
    "one onboarding: its fields, its timeline, its chart with suspended time apart",
    async () => {
      // Stark Logistics waited on its customer before its second phase change.
      await page.goto(`${base}/admin/onboardings/${onboardingIds[3]}`);
      await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toContain("Stark Logistics");
      const chart = page.getByTestId("chart-phase-time");
      await expect(chart.getByRole("img", { name: /Time per phase/ }).isVisible()).resolves.toBe(true);
      const suspended = await chart.locator("rect.bar.s-suspended").evaluateAll((rects) => rects.map((r) => Number(r.getAttribute("width"))));
      expect(suspended.some((w) => w > 0)).toBe(true);
      await chart.getByText("the numbers as a table").click();
      await expect(chart.locator("table").isVisible()).resolves.toBe(true);
      const timeline = await rows("Timeline").allTextContents();
      expect(timeline[0]).toContain("Created in Before getting started");
      expect(timeline.some((r) => r.includes("Phase: Before getting started → Program design") && r.includes("crm-sync"))).toBe(true);
      expect(timeline.some((r) => r.includes("Waiting on the customer"))).toBe(true);
      await checkPage("onboarding");
    },
    STEP,
  );

  test(
    "the SLA report: median and p90 per phase, on-time rate, over a chosen period",
    async () => {
      await page.getByRole("link", { name: "SLA report" }).click();
      await page.waitForURL(`${base}/admin/sla`);
      const chart = page.getByTestId("chart-sla-phases");
      await expect(chart.getByRole("img", { name: /Active time per phase/ }).isVisible()).resolves.toBe(true);
      expect(await chart.locator("rect.bar.s-median").count()).toBeGreaterThan(3);
      await expect(page.getByTestId("on-time-rate").textContent()).resolves.toMatch(/\d+%|—/);
      await checkPage("sla-report");

      // A period before any visit ended: nothing to chart, said in words.
      await page.getByLabel("From (UTC day)").fill("2020-01-01");
      await page.getByLabel("To (UTC day, included)").fill("2020-01-31");
      await page.getByRole("button", { name: "Show" }).click();
      await page.waitForURL(/from=2020-01-01/);
      await expect(page.getByText("No phase visit ended in this period.").isVisible()).resolves.toBe(true);
      expect(await seriousAccessibilityViolations(page)).toEqual([]);
    },
    STEP,
  );

  test(
    "on a narrow screen the overview still reads",
    async () => {
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(`${base}/admin/overview`);
      await checkPage("overview-narrow");
      await page.setViewportSize({ width: 1280, height: 900 });
    },
    STEP,
  );

  test(
    "another workspace's administrator sees none of it",
    async () => {
      const { invite } = await inviteAdmin(t.database, "globex", "gus@globex.example", { clock });
      const other = await (await browser.newContext()).newPage();
      await other.goto(`${base}${invitePath(invite.url)}`);
      await other.getByLabel("New password").fill(PASSWORD);
      await other.getByRole("button", { name: "Set password" }).click();
      await other.waitForURL(/\/admin\/login/);
      await other.getByLabel("E-mail").fill("gus@globex.example");
      await other.getByLabel("Password").fill(PASSWORD);
      await other.getByRole("button", { name: "Sign in" }).click();
      await other.waitForURL(`${base}/admin/overview`);
      expect(await other.content()).not.toContain("Northwind");
      const total = await other.getByTestId("pipeline").locator("tbody tr td:last-child").allTextContents();
      expect(total.map(Number).reduce((a, b) => a + b, 0)).toBe(1);
      await other.goto(`${base}/admin/onboardings`);
      const list = await other.content();
      expect(list).toContain("Globex Secret Customer");
      expect(list).not.toContain("Northwind");
      const response = await other.goto(`${base}/admin/onboardings/${onboardingIds[0]}`);
      expect(response!.status()).toBe(404);
      await other.goto(`${base}/admin/sla`);
      expect(await other.content()).toContain("No phase visit ended in this period.");
      await other.context().close();
    },
    STEP,
  );

  test(
    "an unknown address is a page with a way back, and the tab has an icon",
    async () => {
      const response = await page.goto(`${base}/admin/no-such-page`);
      expect(response!.status()).toBe(404);
      await expect(page.getByRole("heading", { name: "Page not found" }).isVisible()).resolves.toBe(true);
      await checkPage("not-found");
      const icon = await page.request.get(`${base}/favicon.ico`);
      expect(icon.headers()["content-type"]).toBe("image/svg+xml");
    },
    STEP,
  );

  test("no console errors, no failed asset", () => {
    expect(consoleErrors).toEqual([]);
  });
});
