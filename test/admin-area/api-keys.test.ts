import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { adminClient, csrfOf, signedInAdmin, type AdminClient } from "../support/admin-client.ts";
import { createTestApp, type TestApp } from "../support/test-app.ts";
import { createLogger } from "../../shared/logger.ts";

const logLines: string[] = [];
let t: TestApp;
let ada: AdminClient;
let globex: AdminClient;
beforeAll(async () => {
  t = await createTestApp({ logger: createLogger("debug", {}, (line) => logLines.push(line)) });
  ada = (await signedInAdmin(t.app, t.database, "acme", "ada@acme.example")).client;
  globex = (await signedInAdmin(t.app, t.database, "globex", "gus@globex.example")).client;
});
afterAll(async () => {
  await t.close();
});

const secretOf = (page: string) => /data-testid="new-api-key">([^<]+)</.exec(page)?.[1] ?? null;
const me = (key: string) => t.call("GET", "/api/v1/me", { key });

async function createKey(client: AdminClient, name: string, mode: "live" | "test") {
  const page = await client.submit("/admin/api-keys", "/admin/api-keys", { name, mode });
  return { page, key: secretOf(page.text) };
}

describe("/admin/api-keys", () => {
  test("lists the workspace's keys with their usage; the tier is read-only", async () => {
    await t.call("GET", "/api/v1/me");
    t.usage.flush();
    const page = await ada.get("/admin/api-keys");
    expect(page.status).toBe(200);
    for (const column of ["Name", "Prefix", "Mode", "Tier", "Created", "Created by", "Last used", "Requests", "Status"]) {
      expect(page.text).toContain(`<th scope="col">${column}</th>`);
    }
    expect(page.text).toContain("<td>crm-sync</td>");
    expect(page.text).toContain("<td>old-key</td>");
    expect(page.text).toContain("Revoked");
    expect(page.text).not.toContain("<td>globex-sync</td>");
    expect(page.text).not.toContain('name="tier"');
  });

  test("a live and a test key: shown once, each works on /me, never shown again", async () => {
    const live = await createKey(ada, "crm-live", "live");
    expect(live.page.status).toBe(200);
    expect(live.page.headers.get("cache-control")).toBe("no-store");
    expect(live.key).toMatch(/^svc_[0-9A-Za-z]{40}$/);
    expect(live.page.text).toContain("it will not be shown again");
    const test_ = await createKey(ada, "ci-test", "test");
    expect(test_.key).toMatch(/^svc_test_[0-9A-Za-z]{40}$/);

    const liveMe = await me(live.key!);
    expect(liveMe.status).toBe(200);
    expect(liveMe.body).toMatchObject({ key_name: "crm-live", mode: "live", org_slug: "acme" });
    expect(liveMe.body.api_key.rate_limit_tier).toBe("default");
    expect((await me(test_.key!)).body).toMatchObject({ key_name: "ci-test", mode: "test" });

    const again = await ada.get("/admin/api-keys");
    expect(again.text).not.toContain(live.key!);
    expect(again.text).not.toContain(test_.key!);
    expect(again.text).toContain(live.key!.slice(0, 12));
    expect(again.text).toContain("ada@acme.example");
    // Not in a log, not in a URL.
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.join("\n")).not.toContain(live.key!);
    expect(live.page.location).toBeNull();
  });

  test("a resubmitted create form makes no second key and shows no secret", async () => {
    const page = await ada.get("/admin/api-keys");
    const form = { _csrf: csrfOf(page.text), nonce: /name="nonce" value="([^"]+)"/.exec(page.text)![1]!, name: "once", mode: "live" };
    const first = await ada.post("/admin/api-keys", form);
    expect(secretOf(first.text)).not.toBeNull();
    const second = await ada.post("/admin/api-keys", form);
    expect(second.status).toBe(303);
    expect(second.location).toBe("/admin/api-keys");
    expect(await t.count("api_keys", "name = 'once'")).toBe(1);
  });

  test("revoke asks for confirmation, then the very next call answers 401 api_key_revoked", async () => {
    const { key } = await createKey(ada, "to-revoke", "live");
    expect((await me(key!)).status).toBe(200);
    const id = (await t.query<{ id: string }>("SELECT id FROM api_keys WHERE name = 'to-revoke'"))[0]!.id;
    const confirm = await ada.submit("/admin/api-keys", `/admin/api-keys/${id}/revoke`, {});
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain("Revoke this key?");
    expect((await me(key!)).status).toBe(200);
    const done = await ada.submit("/admin/api-keys", `/admin/api-keys/${id}/revoke`, { confirm: "yes" });
    expect(done.status).toBe(303);
    const after = await me(key!);
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe("api_key_revoked");
    expect((await ada.get(done.location!)).text).toContain("revoked");
  });

  test("markup in a key's name is shown as text", async () => {
    const { page } = await createKey(ada, `<img src=x onerror="alert(1)">&"'`, "live");
    expect(page.text).not.toContain("<img src=x");
    expect(page.text).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&amp;&quot;&#39;");
  });

  test("an empty name is refused with the reason on the page", async () => {
    const { page, key } = await createKey(ada, "   ", "live");
    expect(page.status).toBe(400);
    expect(key).toBeNull();
    expect(page.text).toContain("Name must be 1 to 100 characters");
  });
});

describe("security of the forms", () => {
  test("a forged cross-site POST is refused and changes nothing", async () => {
    const page = await ada.get("/admin/api-keys");
    const form = { _csrf: csrfOf(page.text), nonce: "n".repeat(43), name: "forged", mode: "live" };
    const crossSite = await ada.post("/admin/api-keys", form, { origin: "https://evil.example" });
    expect(crossSite.status).toBe(403);
    const noOrigin = await ada.post("/admin/api-keys", form, { origin: "" });
    expect(noOrigin.status).toBe(403);
    const noToken = await ada.post("/admin/api-keys", { nonce: "m".repeat(43), name: "forged", mode: "live" });
    expect(noToken.status).toBe(403);
    const otherSessionToken = await ada.post("/admin/api-keys", { ...form, _csrf: csrfOf((await globex.get("/admin/api-keys")).text) });
    expect(otherSessionToken.status).toBe(403);
    expect(await t.count("api_keys", "name = 'forged'")).toBe(0);
  });

  test("pages send a strict CSP, no framing, same-origin referrers and no-store", async () => {
    const page = await ada.get("/admin/api-keys");
    const csp = page.headers.get("content-security-policy")!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain("unsafe-inline");
    expect(page.headers.get("referrer-policy")).toBe("same-origin");
    expect(page.headers.get("cache-control")).toBe("no-store");
    expect(page.text).not.toMatch(/<script>|<style>| style="| on[a-z]+="/);
    const css = await ada.get("/admin/assets/admin.css");
    expect(css.headers.get("content-type")).toStartWith("text/css");
    expect((await ada.get("/admin/assets/admin.js")).headers.get("content-type")).toStartWith("text/javascript");
  });

  test("without a session every page leads to sign-in, and no form runs", async () => {
    const anonymous = adminClient(t.app);
    for (const path of ["/admin/overview", "/admin/onboardings", "/admin/onboardings/1", "/admin/sla", "/admin/api-keys", "/admin/users", "/admin/settings", "/admin/webhooks", "/admin/deliveries", "/admin/activity", "/admin/audit"]) {
      const page = await anonymous.get(path);
      expect({ path, status: page.status, location: page.location }).toEqual({ path, status: 303, location: "/admin/login" });
    }
    expect((await anonymous.post("/admin/api-keys", { name: "x", mode: "live" })).location).toBe("/admin/login");
  });

  test("browsers get pages: / leads to the admin area, an unknown /admin address is an HTML 404, there is a favicon", async () => {
    const anonymous = adminClient(t.app);
    expect((await anonymous.get("/")).location).toBe("/admin");
    for (const client of [anonymous, ada]) {
      const missing = await client.get("/admin/no-such-page");
      expect(missing.status).toBe(404);
      expect(missing.headers.get("content-type")).toStartWith("text/html");
      expect(missing.headers.get("content-security-policy")).toContain("default-src 'none'");
      expect(missing.text).toContain("<h1>Page not found</h1>");
    }
    for (const path of ["/favicon.ico", "/admin/assets/favicon.svg"]) {
      const icon = await anonymous.get(path);
      expect(icon.status).toBe(200);
      expect(icon.headers.get("content-type")).toBe("image/svg+xml");
    }
    expect((await ada.get("/admin/overview")).text).toContain('<link rel="icon" href="/admin/assets/favicon.svg"');
    // The API's own unknown paths still answer JSON.
    expect((await anonymous.get("/api/v1/nope")).headers.get("content-type")).toStartWith("application/json");
  });
});

describe("workspaces are apart", () => {
  test("another workspace's administrator can neither see nor revoke a key", async () => {
    const page = await globex.get("/admin/api-keys");
    expect(page.text).toContain("<td>globex-sync</td>");
    expect(page.text).not.toContain("<td>crm-sync</td>");
    const revoke = await globex.submit("/admin/api-keys", `/admin/api-keys/${t.keyIds.live}/revoke`, { confirm: "yes" });
    expect(revoke.status).toBe(404);
    expect((await me(t.keys.live)).status).toBe(200);
    const audit = await globex.get("/admin/audit");
    expect(audit.text).not.toContain("ada@acme.example");
  });

  test("with ADMIN_TOKEN set, a session does not open the operator's pages, nor the token an administrator's", async () => {
    const token = "operator-token-0123456789abcdef";
    const withToken = await createTestApp({ adminToken: token });
    try {
      const { client } = await signedInAdmin(withToken.app, withToken.database, "acme", "ada@acme.example");
      expect((await client.get("/admin/queues")).status).toBe(401);
      expect((await client.get("/metrics")).status).toBe(401);
      expect((await client.get("/admin/api-keys")).status).toBe(200);
      const operator = adminClient(withToken.app);
      expect((await operator.get("/metrics", { authorization: `Bearer ${token}` })).status).toBe(200);
      expect((await operator.get("/admin/api-keys", { authorization: `Bearer ${token}` })).location).toBe("/admin/login");
    } finally {
      await withToken.close();
    }
  });

  test("the operator's ADMIN_TOKEN pages stay apart from administrator sessions", async () => {
    expect((await ada.get("/admin/queues")).status).toBe(404); // no ADMIN_TOKEN configured here
    expect((await ada.get("/metrics")).status).toBe(404);
    const withToken = await adminClient(t.app).get("/admin/api-keys", { authorization: "Bearer anything-at-all-0123456789" });
    expect(withToken.location).toBe("/admin/login");
  });
});
