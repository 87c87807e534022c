/**
 * The admin area's webhooks page in headless Chromium, over the real pipeline: the API app and
 * an in-process worker on a private Redis deliver to a loopback receiver. An administrator adds
 * an endpoint (the secret shown once, and it verifies the real delivery with the
 * `standardwebhooks` package), pings it, sees the attempts, disables and enables it, rotates
 * the secret, recovers what it missed and deletes it; each action is in the audit log; another
 * workspace's endpoint is not found; axe on every page, a screenshot of each.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { Webhook } from "standardwebhooks";
import { inviteAdmin, invitePath, PASSWORD } from "../support/admin-client.ts";
import { launchChromium, screenshot, seriousAccessibilityViolations } from "../support/browser.ts";
import { startDnsServer } from "../support/dns-server.ts";
import { createSideEffectsHarness, waitFor } from "../support/side-effects-harness.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";

let h: Awaited<ReturnType<typeof createSideEffectsHarness>>;
let receiver: WebhookReceiver;
let dns: Awaited<ReturnType<typeof startDnsServer>>;
let browser: Browser;
let page: Page;
let base: string;
const consoleErrors: string[] = [];

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  dns = await startDnsServer();
  h = await createSideEffectsHarness({
    webhooks: { rules: { allowHttp: true, allowPrivateNetworks: true, dnsServers: [dns.server] }, pausesMs: [50, 50, 50, 50, 50, 50, 50], timeoutMs: 400 },
  });
  h.t.app.listen({ hostname: "127.0.0.1", port: 0, reusePort: false });
  base = `http://127.0.0.1:${h.t.app.server!.port}`;
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
  const { invite } = await inviteAdmin(h.t.database, "acme", "ada@acme.example", { name: "Ada Admin" });
  await page.goto(`${base}${invitePath(invite.url)}`);
  await page.getByLabel("New password").fill(PASSWORD);
  await page.getByRole("button", { name: "Set password" }).click();
  await page.waitForURL(/\/admin\/login/);
  await page.getByLabel("E-mail").fill("ada@acme.example");
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(/\/admin\/overview/);
});

afterAll(async () => {
  await browser?.close();
  h.t.app.stop();
  await h.close();
  receiver.stop();
  dns.stop();
});

async function checkPage(name: string) {
  expect(await seriousAccessibilityViolations(page)).toEqual([]);
  await screenshot(page, name);
}
const deliveredTo = (path: string) => receiver.received.filter((r) => r.path === path);
const attemptRows = () => page.getByRole("region", { name: "Delivery attempts" }).locator("tbody tr");

describe("webhook endpoints in the admin area", () => {
  let secret = "";
  let endpointPath = "";

  test(
    "an endpoint is added, its secret shown once, and a real delivery verifies with it",
    async () => {
      await page.getByRole("link", { name: "Webhooks" }).click();
      await checkPage("webhooks-empty");
      await page.getByLabel("URL").fill(receiver.url("/crm"));
      await page.getByLabel("Description (optional)").fill("CRM sync");
      await page.getByLabel("Every event, including types added later").uncheck();
      await page.getByLabel("customer.created").check();
      await page.getByRole("button", { name: "Add endpoint" }).click();
      secret = (await page.getByTestId("webhook-secret").textContent())!.trim();
      expect(secret).toStartWith("whsec_");
      await checkPage("webhooks-created");

      // A reload does not add a second endpoint, nor show the secret again.
      await page.reload();
      expect(await page.getByTestId("webhook-secret").count()).toBe(0);
      expect(await page.getByRole("region", { name: "Webhook endpoints" }).locator("tbody tr").count()).toBe(1);

      const customer = (await h.t.call("POST", "/api/v1/customers", { body: { name: "Hooked Co" } })).body;
      await h.t.call("POST", "/api/v1/customers/" + customer.id + "/contacts", { body: { name: "Not subscribed", email: "n@hooked.example" } });
      await waitFor(() => deliveredTo("/crm").length === 1, "the delivery");
      const [delivery] = deliveredTo("/crm");
      const event = new Webhook(secret).verify(delivery!.body, delivery!.headers) as { type: string; data: { object: { id: string } } };
      expect([event.type, event.data.object.id]).toEqual(["customer.created", customer.id]);

      await page.getByRole("link", { name: receiver.url("/crm") }).click();
      endpointPath = new URL(page.url()).pathname;
      expect(await page.getByText("customer.created").count()).toBeGreaterThan(0);
      await waitFor(async () => (await page.reload(), (await attemptRows().count()) === 1), "the attempt on the page");
      expect(await attemptRows().first().textContent()).toContain("200");
    },
    30_000,
  );

  test(
    "ping sends a test event whose attempt is listed; a failing answer shows its status and excerpt",
    async () => {
      receiver.answer("/crm", { status: 500, body: "receiver exploded" });
      await page.getByRole("button", { name: "Send a test event" }).click();
      await page.getByText("A test event is on its way").waitFor();
      await waitFor(async () => (await page.reload(), (await attemptRows().count()) === 2), "the ping's attempt");
      const newest = (await attemptRows().first().textContent())!;
      expect(newest).toContain("500");
      expect(newest).toContain("receiver exploded");
      await checkPage("webhook-endpoint");
    },
    30_000,
  );

  test(
    "disabled, it is sent nothing; enabled again and recovered, it gets what it missed",
    async () => {
      await page.getByRole("button", { name: "Disable" }).click();
      await page.getByText("Endpoint disabled").waitFor();
      expect(await page.getByTestId("endpoint-status").textContent()).toContain("Disabled");
      const before = deliveredTo("/crm").length;
      const missed = (await h.t.call("POST", "/api/v1/customers", { body: { name: "Missed Co" } })).body;
      await waitFor(() => h.settled(), "the change's outbox to settle");
      expect(deliveredTo("/crm").length).toBe(before);

      await page.getByRole("button", { name: "Enable" }).click();
      await page.getByText("Endpoint enabled").waitFor();
      await page.getByRole("button", { name: "Recover", exact: true }).click();
      await page.getByText(/Queued 1 event again/).waitFor();
      await waitFor(() => deliveredTo("/crm").length === before + 1, "the recovered delivery");
      const event = new Webhook(secret).verify(deliveredTo("/crm").at(-1)!.body, deliveredTo("/crm").at(-1)!.headers) as { data: { object: { id: string } } };
      expect(event.data.object.id).toBe(missed.id);
    },
    30_000,
  );

  test(
    "rotating shows the new secret once; both secrets verify for the overlap",
    async () => {
      await page.getByRole("button", { name: "Rotate secret" }).click();
      const rotated = (await page.getByTestId("webhook-secret").textContent())!.trim();
      expect(rotated).not.toBe(secret);
      await checkPage("webhook-rotated");
      await h.t.call("POST", "/api/v1/customers", { body: { name: "After Rotation Co" } });
      await waitFor(() => deliveredTo("/crm").some((d) => d.body.includes("After Rotation Co")), "the delivery after rotation");
      const delivery = deliveredTo("/crm").find((d) => d.body.includes("After Rotation Co"))!;
      expect(() => new Webhook(rotated).verify(delivery.body, delivery.headers)).not.toThrow();
      expect(() => new Webhook(secret).verify(delivery.body, delivery.headers)).not.toThrow();
      // A resubmitted rotation (reload of the POST) does not rotate again.
      await page.reload();
      expect(await page.getByTestId("webhook-secret").count()).toBe(0);
    },
    30_000,
  );

  test(
    "refusals read as sentences: a forbidden URL, no events, another workspace's endpoint",
    async () => {
      await page.goto(`${base}/admin/webhooks`);
      await page.getByLabel("URL").fill("https://169.254.169.254/latest");
      await page.getByRole("button", { name: "Add endpoint" }).click();
      expect(await page.getByRole("alert").textContent()).toBe("169.254.169.254 is a link-local address: webhooks go only to public addresses.");
      await page.getByLabel("URL").fill(receiver.url("/none"));
      await page.getByLabel("Every event, including types added later").uncheck();
      await page.getByRole("button", { name: "Add endpoint" }).click();
      expect(await page.getByRole("alert").textContent()).toContain("Choose at least one event");

      const other = await h.t.call("POST", "/api/v1/webhook_endpoints", { key: h.t.keys.other, body: { url: receiver.url("/globex"), enabled_events: ["*"] } });
      const response = await page.goto(`${base}/admin/webhooks/${other.body.id}`);
      expect(response!.status()).toBe(404);
    },
    30_000,
  );

  test(
    "deleting asks first; every action is in the audit log; no console errors",
    async () => {
      await page.goto(`${base}${endpointPath}`);
      await page.getByRole("button", { name: "Delete…" }).click();
      await checkPage("webhook-delete-confirm");
      await page.getByRole("button", { name: "Delete endpoint" }).click();
      await page.getByText("Endpoint deleted.").waitFor();
      expect(await page.getByText("No endpoints yet.").count()).toBe(1);

      await page.getByRole("link", { name: "Audit log" }).click();
      const log = (await page.getByRole("main").textContent())!;
      for (const action of ["create", "disable", "enable", "recover", "rotate_secret", "delete"]) expect(log).toContain(`webhook_endpoint.${action}`);
      expect(consoleErrors).toEqual([]);
    },
    30_000,
  );
});
