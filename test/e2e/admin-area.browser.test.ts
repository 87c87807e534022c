/**
 * The admin area end to end in headless Chromium (Debian's, through playwright-core): invite,
 * set password, sign in, keys created, used, hidden after a reload and revoked; refusals;
 * escaping; workspaces apart; session expiry; axe-core on every page; a screenshot of each.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { run } from "../../shared/db/flow.ts";
import { addUser } from "../../shared/workspaces.ts";
import { inviteAdmin, invitePath, PASSWORD } from "../support/admin-client.ts";
import { launchChromium, screenshot, seriousAccessibilityViolations } from "../support/browser.ts";
import { createTestApp, ManualClock, type TestApp } from "../support/test-app.ts";

const STEP = 60_000;
const clock = new ManualClock(Date.now() * 1000);
let t: TestApp;
let browser: Browser;
let base: string;
let evil: ReturnType<typeof Bun.serve>;
let context: BrowserContext;
let page: Page;
const dialogs: string[] = [];

beforeAll(async () => {
  t = await createTestApp({ clock, secretKey: "s".repeat(40) });
  t.app.listen({ hostname: "127.0.0.1", port: 0, reusePort: false });
  base = `http://127.0.0.1:${t.app.server!.port}`;
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  page.setDefaultTimeout(10_000);
  page.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
});

afterAll(async () => {
  await browser?.close();
  evil?.stop(true);
  await t.app.stop();
  await t.close();
});

const me = (key: string) => fetch(`${base}/api/v1/me`, { headers: { authorization: `Bearer ${key}` } });

async function signIn(p: Page, email: string, password: string) {
  await p.goto(`${base}/admin/login`);
  await p.getByLabel("E-mail").fill(email);
  await p.getByLabel("Password").fill(password);
  await p.getByRole("button", { name: "Sign in" }).click();
}

async function createKey(p: Page, name: string, mode: "Live" | "Test") {
  await p.goto(`${base}/admin/api-keys`);
  await p.getByLabel("Name").fill(name);
  await p.getByLabel(mode, { exact: false }).check();
  await p.getByRole("button", { name: "Create key" }).click();
  return (await p.getByTestId("new-api-key").textContent())!.trim();
}

async function checkPage(p: Page, name: string) {
  expect(await seriousAccessibilityViolations(p)).toEqual([]);
  await screenshot(p, name);
}

describe("the admin area in a browser", () => {
  let liveKey = "";
  let testKey = "";

  test(
    "invite → set password → sign in",
    async () => {
      const { invite } = await inviteAdmin(t.database, "acme", "ada@acme.example", { name: "Ada Admin", clock });
      await page.goto(`${base}${invitePath(invite.url)}`);
      await checkPage(page, "set-password");
      await page.getByLabel("New password").fill(PASSWORD);
      await page.getByRole("button", { name: "Set password" }).click();
      await page.waitForURL(/\/admin\/login/);
      await checkPage(page, "sign-in");
      await signIn(page, "ada@acme.example", PASSWORD);
      // Sign-in lands on the onboardings' overview.
      await page.waitForURL(`${base}/admin/overview`);
      await expect(page.getByRole("heading", { name: "Overview" }).isVisible()).resolves.toBe(true);
      await page.getByRole("link", { name: "API keys" }).click();
      await expect(page.getByRole("heading", { name: "API keys" }).isVisible()).resolves.toBe(true);
      const cookies = await context.cookies();
      const session = cookies.find((c) => c.name === "admin_session")!;
      expect(session.httpOnly).toBe(true);
      expect(session.sameSite).toBe("Lax");
    },
    STEP,
  );

  test(
    "a live and a test key: each works on GET /api/v1/me, gone after a reload, copy button works",
    async () => {
      liveKey = await createKey(page, "crm-sync-e2e", "Live");
      expect(liveKey).toMatch(/^svc_[0-9A-Za-z]{40}$/);
      expect(await page.getByText("it will not be shown again").isVisible()).toBe(true);
      await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: base });
      const copy = page.getByRole("button", { name: "Copy" });
      expect(await copy.isVisible()).toBe(true); // the served script ran under the CSP
      await copy.click();
      expect(await page.evaluate("navigator.clipboard.readText()")).toBe(liveKey);
      await checkPage(page, "api-keys-created");
      expect(page.url()).not.toContain(liveKey);

      testKey = await createKey(page, "ci-e2e", "Test");
      expect(testKey).toMatch(/^svc_test_[0-9A-Za-z]{40}$/);

      const live = await me(liveKey);
      expect(live.status).toBe(200);
      expect(await live.json()).toMatchObject({ key_name: "crm-sync-e2e", mode: "live" });
      const testMode = await me(testKey);
      expect(testMode.status).toBe(200);
      expect(await testMode.json()).toMatchObject({ key_name: "ci-e2e", mode: "test" });

      await page.reload();
      expect(await page.getByTestId("new-api-key").count()).toBe(0);
      const html = await page.content();
      expect(html).not.toContain(liveKey);
      expect(html).not.toContain(testKey);
      await page.goto(`${base}/admin/api-keys`);
      expect(await page.content()).not.toContain(testKey);
      await checkPage(page, "api-keys");
    },
    STEP,
  );

  test(
    "revoke with confirmation: the next call answers 401 api_key_revoked",
    async () => {
      await page.goto(`${base}/admin/api-keys`);
      await page.getByRole("row", { name: /crm-sync-e2e/ }).getByRole("button", { name: "Revoke" }).click();
      await page.waitForURL(/\/revoke$/);
      await checkPage(page, "revoke-confirm");
      expect((await me(liveKey)).status).toBe(200);
      await page.getByRole("button", { name: "Revoke key" }).click();
      await page.waitForURL(/revoked=/);
      const refused = await me(liveKey);
      expect(refused.status).toBe(401);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("api_key_revoked");
      expect((await me(testKey)).status).toBe(200);
    },
    STEP,
  );

  test(
    "markup in key and user names is shown as text",
    async () => {
      const name = `<img src=x onerror="alert('key')">`;
      await createKey(page, name, "Test");
      await page.goto(`${base}/admin/api-keys`);
      expect(await page.getByRole("cell", { name, exact: true }).count()).toBe(1);
      expect(await page.locator("main img").count()).toBe(0);

      await page.goto(`${base}/admin/users`);
      await page.getByLabel("Name", { exact: true }).fill(`<b onmouseover="alert('user')">Bold</b>`);
      await page.getByLabel("E-mail").fill("bold@acme.example");
      await page.getByRole("button", { name: "Add user" }).click();
      await page.waitForURL(/added/);
      expect(await page.getByRole("cell", { name: `<b onmouseover="alert('user')">Bold</b>`, exact: true }).count()).toBe(1);
      expect(await page.locator("main td b").count()).toBe(0);
      expect(dialogs).toEqual([]);
    },
    STEP,
  );

  test(
    "users, settings, deliveries, activity and audit pages",
    async () => {
      await run(addUser(t.database, clock, { workspaceSlug: "acme", name: "Casey CSM", email: "casey@acme.example", slackUserId: "U0CASEY1" }));
      await page.goto(`${base}/admin/users`);
      await page.getByLabel("Name", { exact: true }).fill("Second Admin");
      await page.getByLabel("E-mail").fill("second@acme.example");
      await page.getByLabel("Role").selectOption("admin");
      await page.getByRole("button", { name: "Add user" }).click();
      expect(await page.getByTestId("invite-url").textContent()).toContain("/admin/invite/");
      await checkPage(page, "users");

      await page.getByRole("link", { name: "Edit Casey CSM" }).click();
      await checkPage(page, "user");

      await page.goto(`${base}/admin/settings`);
      await page.getByLabel(/New Slack bot token/).fill("xoxb-e2e-secret-token");
      await page.getByLabel(/launch-recap/).check();
      await page.getByRole("button", { name: "Save settings" }).click();
      await page.waitForURL(/saved/);
      expect(await page.getByTestId("slack-token-status").textContent()).toBe("set");
      expect(await page.content()).not.toContain("xoxb-e2e-secret-token");
      await checkPage(page, "settings");

      await seedReports();
      await page.goto(`${base}/admin/deliveries`);
      await page.getByLabel("Status").selectOption("failed");
      await page.getByRole("button", { name: "Filter" }).click();
      expect(await page.getByRole("cell", { name: "channel_not_found" }).count()).toBe(1);
      expect(await page.getByRole("cell", { name: "sent", exact: true }).count()).toBe(0);
      await page.goto(`${base}/admin/deliveries`);
      await checkPage(page, "deliveries");

      await page.goto(`${base}/admin/activity`);
      await checkPage(page, "activity");
      await page.goto(`${base}/admin/audit`);
      expect(await page.getByRole("cell", { name: "api_key.revoke" }).count()).toBe(1);
      await checkPage(page, "audit");
    },
    STEP,
  );

  test(
    "narrow screens: no sideways scrolling of the page, keyboard reaches the skip link",
    async () => {
      const narrow = await context.newPage();
      await narrow.setViewportSize({ width: 375, height: 800 });
      for (const path of ["/admin/api-keys", "/admin/users", "/admin/deliveries"]) {
        await narrow.goto(`${base}${path}`);
        const overflow = await narrow.evaluate<number>("document.documentElement.scrollWidth - document.documentElement.clientWidth");
        expect({ path, overflow }).toEqual({ path, overflow: 0 });
      }
      await screenshot(narrow, "deliveries-narrow");
      await narrow.keyboard.press("Tab");
      expect(await narrow.evaluate<string | undefined>("document.activeElement?.textContent")).toBe("Skip to content");
      await narrow.close();
    },
    STEP,
  );

  test(
    "deliveries and the audit log fit a 1280-pixel screen with long ids, addresses, URLs and reasons",
    async () => {
      await seedLongRows();
      for (const path of ["/admin/deliveries", "/admin/audit"]) {
        await page.goto(`${base}${path}`);
        expect(await page.getByText("x".repeat(40), { exact: false }).count()).toBeGreaterThan(0); // the long rows are on the page
        // Neither the page nor a table's own region scrolls sideways.
        const widths = await page.evaluate<{ page: number; tables: number[] }>(
          `({ page: document.documentElement.scrollWidth, tables: [...document.querySelectorAll(".table-wrap")].map((t) => t.scrollWidth - t.clientWidth) })`,
        );
        expect({ path, ...widths }).toEqual({ path, page: widths.page <= 1280 ? widths.page : -1, tables: widths.tables.map(() => 0) });
        // A cut id keeps its whole value in its tooltip.
        if (path === "/admin/deliveries") expect(await page.locator(`code.id[title="${LONG_ID}"]`).count()).toBeGreaterThan(0);
        await checkPage(page, path === "/admin/deliveries" ? "deliveries-long" : "audit-long");
      }
    },
    STEP,
  );

  test(
    "a wrong password, and a forged cross-site POST, are refused",
    async () => {
      const other = await browser.newContext();
      const p = await other.newPage();
      await signIn(p, "ada@acme.example", "not the password at all");
      expect(await p.getByRole("alert").textContent()).toContain("Sign-in failed");
      expect(p.url()).toBe(`${base}/admin/login`);
      await other.close();

      // Another site (localhost is not the same site as 127.0.0.1) posts a form at the admin area.
      evil = Bun.serve({
        hostname: "127.0.0.1",
        port: 0,
        fetch: () =>
          new Response(
            `<!doctype html><form id="f" method="post" action="${base}/admin/api-keys"><input name="name" value="forged"><input name="mode" value="live"></form><script>document.getElementById("f").submit()</script>`,
            { headers: { "content-type": "text/html" } },
          ),
      });
      const answer = page.waitForResponse((r) => r.url() === `${base}/admin/api-keys` && r.request().method() === "POST");
      await page.goto(`http://localhost:${evil.port}/`);
      expect((await answer).status()).toBe(403);
      expect(await t.count("api_keys", "name = 'forged'")).toBe(0);
    },
    STEP,
  );

  test(
    "another workspace's administrator can neither see nor revoke",
    async () => {
      const { invite } = await inviteAdmin(t.database, "globex", "gus@globex.example", { clock });
      const other = await browser.newContext();
      const p = await other.newPage();
      await p.goto(`${base}${invitePath(invite.url)}`);
      await p.getByLabel("New password").fill(PASSWORD);
      await p.getByRole("button", { name: "Set password" }).click();
      await p.waitForURL(/\/admin\/login/);
      await signIn(p, "gus@globex.example", PASSWORD);
      await p.waitForURL(`${base}/admin/overview`);
      await p.goto(`${base}/admin/api-keys`);
      const html = await p.content();
      expect(html).toContain("globex-sync");
      expect(html).not.toContain("ci-e2e");
      const csrf = await p.locator('input[name="_csrf"]').first().inputValue();
      const revoke = await p.request.post(`${base}/admin/api-keys/${t.keyIds.live}/revoke`, {
        form: { _csrf: csrf, confirm: "yes" },
        headers: { origin: base },
        maxRedirects: 0,
      });
      expect(revoke.status()).toBe(404);
      expect((await me(t.keys.live)).status).toBe(200);
      await other.close();
    },
    STEP,
  );

  test(
    "without JavaScript, by keyboard alone: a key is created and shown, the copy button stays hidden",
    async () => {
      const noScript = await browser.newContext({ javaScriptEnabled: false });
      const p = await noScript.newPage();
      p.setDefaultTimeout(10_000);
      await p.goto(`${base}/admin/login`);
      await p.keyboard.press("Tab"); // E-mail
      await p.keyboard.type("ada@acme.example");
      await p.keyboard.press("Tab"); // Password
      await p.keyboard.type(PASSWORD);
      await p.keyboard.press("Enter");
      await p.waitForURL(`${base}/admin/overview`);
      await p.goto(`${base}/admin/api-keys`);
      await p.getByLabel("Name").focus();
      await p.keyboard.type("keyboard-only");
      await p.keyboard.press("Enter");
      await p.waitForLoadState();
      const key = (await p.getByTestId("new-api-key").textContent())!.trim();
      expect(key).toMatch(/^svc_[0-9A-Za-z]{40}$/);
      expect(await p.getByRole("button", { name: "Copy" }).isVisible()).toBe(false);
      expect((await me(key)).status).toBe(200);
      await noScript.close();
    },
    STEP,
  );

  test(
    "the accessibility check itself finds a serious violation when there is one",
    async () => {
      const bare = await context.newPage();
      await bare.setContent('<!doctype html><html lang="en"><title>x</title><main><input type="text"><p style="color:#bbb;background:#fff">faint</p></main></html>');
      expect((await seriousAccessibilityViolations(bare)).length).toBeGreaterThan(0);
      await bare.close();
    },
    STEP,
  );

  test(
    "a session idle for 12 hours ends (injectable clock)",
    async () => {
      await page.goto(`${base}/admin/api-keys`);
      expect(page.url()).toBe(`${base}/admin/api-keys`);
      clock.advanceSeconds(12 * 3600 + 1);
      await page.goto(`${base}/admin/api-keys`);
      expect(page.url()).toBe(`${base}/admin/login`);
    },
    STEP,
  );
});

const LONG_ID = `usr_${"X".repeat(60)}`;

/** Rows whose every free field is as long as the service lets it be: unbroken ids, addresses, URLs and reasons. */
async function seedLongRows() {
  const org = (await t.query<{ id: string }>("SELECT id FROM organizations WHERE slug = 'acme'"))[0]!.id;
  const now = clock.nowMicros();
  const long = "x".repeat(120);
  const rows: [string, string][] = [
    ["launch.slack_dm", LONG_ID],
    ["reminder.email", `${long}@${"very-long-subdomain.".repeat(6)}example`],
    ["launch.calendar_entry", `cus_${"Y".repeat(60)}`],
  ];
  for (const [i, [kind, target]] of rows.entries()) {
    await t.query(
      "INSERT INTO deliveries (id, source, org_id, onboarding_id, kind, target, status, detail, attempts, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      `dlv_long_${i}`, `long-${i}`, org, `onb_${"Z".repeat(60)}`, kind, target, "failed", `Slack refused: ${long}_${long}`, 12, now + 1000 + i, now + 1000 + i,
    );
  }
  for (let i = 0; i < 3; i++) {
    await t.query(
      "INSERT INTO audit_log (org_id, actor_user_id, actor, action, target, detail, address, at) VALUES (?, NULL, ?, ?, ?, ?, ?, ?)",
      org, `${long}@acme.example`, "webhook_endpoint.create", `https://hooks.acme.example/${long}/${long}?token=${long}`, `events ${long},${long}`, `${"f".repeat(39)}:${long}`, now + 1000 + i,
    );
  }
}

async function seedReports() {
  const [onboarding] = await t.query<{ id: string }>("SELECT id FROM onboardings LIMIT 1");
  const onboardingId = onboarding?.id ?? "onb_e2e";
  const org = (await t.query<{ id: string }>("SELECT id FROM organizations WHERE slug = 'acme'"))[0]!.id;
  const key = t.keyIds.live;
  const now = clock.nowMicros();
  const rows: [string, string, string | null, string, string | null, number][] = [
    ["launch.slack_dm", "U0CASEY1", "sent", null, 1],
    ["launch.calendar_entry", null, "sent", null, 1],
    ["reminder.slack", "U0GONE", "failed", "channel_not_found", 3],
    ["reminder.email", "ada@globex.example", "skipped", "no primary contact", 1],
  ].map((r, i) => [`dlv_e2e_${i}`, r[0] as string, r[1] as string | null, r[2] as string, r[3] as string | null, r[4] as number]);
  for (const [i, [id, kind, target, status, detail, attempts]] of rows.entries()) {
    await t.query(
      "INSERT INTO deliveries (id, source, org_id, onboarding_id, kind, target, status, detail, attempts, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      id, `e2e-${i}`, org, onboardingId, kind, target, status, detail, attempts, now - i * 1000, now,
    );
  }
  for (let i = 0; i < 3; i++) {
    await t.query(
      "INSERT INTO activity_entries (request_id, org_id, key_id, actor, method, route, status, address, duration_ms, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      `req_e2e_${i}`, org, key, "crm-sync", "GET", "/api/v1/me", 200, "127.0.0.1", 1.5, now - i * 1000,
    );
  }
}
