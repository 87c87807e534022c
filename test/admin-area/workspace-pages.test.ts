import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { run } from "../../shared/db/flow.ts";
import { addUser } from "../../shared/workspaces.ts";
import { adminClient, invitePath, PASSWORD, signedInAdmin, type AdminClient } from "../support/admin-client.ts";
import { createTestApp, type TestApp } from "../support/test-app.ts";

let t: TestApp;
let ada: AdminClient;
let adaId: string;
let globex: AdminClient;
let acmeOrg: string;
let globexOrg: string;
beforeAll(async () => {
  t = await createTestApp({ secretKey: "s".repeat(40) });
  const signed = await signedInAdmin(t.app, t.database, "acme", "ada@acme.example");
  ada = signed.client;
  adaId = signed.user.id;
  globex = (await signedInAdmin(t.app, t.database, "globex", "gus@globex.example")).client;
  const org = async (slug: string) => (await t.query<{ id: string }>("SELECT id FROM organizations WHERE slug = ?", slug))[0]!.id;
  acmeOrg = await org("acme");
  globexOrg = await org("globex");
});
afterAll(async () => {
  await t.close();
});

const userId = async (email: string) => (await t.query<{ id: string }>("SELECT id FROM users WHERE email = ?", email))[0]?.id ?? null;
/** A workspace's sealed Slack token and launch-recap switch (a boolean on both engines). */
const settingsRow = async (orgId: string) => {
  const [row] = await t.query<{ t: string | null; r: unknown }>("SELECT slack_token_encrypted AS t, launch_recap_enabled AS r FROM organizations WHERE id = ?", orgId);
  return { t: row!.t, r: Boolean(row!.r) };
};

describe("/admin/users", () => {
  test("add a member, change them, remove them; markup in names is escaped", async () => {
    const added = await ada.submit("/admin/users", "/admin/users", { name: "<i>Casey</i>", email: "casey@acme.example", role: "member", slack_user_id: "U0CASEY1" });
    expect(added.status).toBe(303);
    const list = await ada.get("/admin/users");
    expect(list.text).toContain("&lt;i&gt;Casey&lt;/i&gt;");
    expect(list.text).not.toContain("<i>Casey</i>");
    expect(list.text).toContain("U0CASEY1");
    const id = (await userId("casey@acme.example"))!;

    const changed = await ada.submit(`/admin/users/${id}`, `/admin/users/${id}`, { name: "Casey", role: "member", slack_user_id: "U0CASEY2" });
    expect(changed.status).toBe(303);
    expect((await ada.get(`/admin/users/${id}`)).text).toContain('value="U0CASEY2"');

    const bad = await ada.submit(`/admin/users/${id}`, `/admin/users/${id}`, { name: "Casey", role: "member", slack_user_id: "not-slack" });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain("Slack user id must look like");

    const unconfirmed = await ada.submit(`/admin/users/${id}`, `/admin/users/${id}/remove`, {});
    expect(unconfirmed.status).toBe(400);
    const removed = await ada.submit(`/admin/users/${id}`, `/admin/users/${id}/remove`, { confirm: "yes" });
    expect(removed.status).toBe(303);
    expect(await userId("casey@acme.example")).toBeNull();
  });

  test("a taken e-mail is refused with the reason", async () => {
    const again = await ada.submit("/admin/users", "/admin/users", { name: "Ada 2", email: "ADA@acme.example", role: "member" });
    expect(again.status).toBe(400);
    expect(again.text).toContain("already exists");
  });

  test("an administrator invites another; the link is shown once and works", async () => {
    const added = await ada.submit("/admin/users", "/admin/users", { name: "Bea", email: "bea@acme.example", role: "admin" });
    expect(added.status).toBe(200);
    expect(added.headers.get("cache-control")).toBe("no-store");
    const url = /data-testid="invite-url">([^<]+)</.exec(added.text)![1]!;
    expect(url).toStartWith("http://127.0.0.1:3000/admin/invite/");
    expect((await ada.get("/admin/users")).text).not.toContain(url);
    const bea = adminClient(t.app);
    expect((await bea.post(invitePath(url), { password: PASSWORD })).status).toBe(303);
    expect((await bea.signIn("bea@acme.example", PASSWORD)).status).toBe(303);
    expect((await bea.get("/admin/api-keys")).status).toBe(200);

    // A new link for her replaces the old one.
    const id = (await userId("bea@acme.example"))!;
    const reissued = await ada.submit(`/admin/users/${id}`, `/admin/users/${id}/invite`, {});
    expect(reissued.text).toMatch(/data-testid="invite-url">http:\/\/127\.0\.0\.1:3000\/admin\/invite\//);
  });

  test("a removed or demoted administrator's sessions end at once", async () => {
    const removed = await signedInAdmin(t.app, t.database, "acme", "gone@acme.example");
    expect((await removed.client.get("/admin/api-keys")).status).toBe(200);
    await ada.submit(`/admin/users/${removed.user.id}`, `/admin/users/${removed.user.id}/remove`, { confirm: "yes" });
    expect((await removed.client.get("/admin/api-keys")).location).toBe("/admin/login");

    const demoted = await signedInAdmin(t.app, t.database, "acme", "demoted@acme.example");
    await ada.submit(`/admin/users/${demoted.user.id}`, `/admin/users/${demoted.user.id}`, { name: "Demoted", role: "member", slack_user_id: "" });
    expect((await demoted.client.get("/admin/api-keys")).location).toBe("/admin/login");
    expect((await demoted.client.signIn("demoted@acme.example", PASSWORD)).status).toBe(401);
  });

  test("an administrator cannot remove or demote themselves", async () => {
    expect((await ada.submit(`/admin/users/${adaId}`, `/admin/users/${adaId}/remove`, { confirm: "yes" })).status).toBe(400);
    expect((await ada.submit(`/admin/users/${adaId}`, `/admin/users/${adaId}`, { name: "Ada", role: "member" })).status).toBe(400);
    expect((await ada.get("/admin/api-keys")).status).toBe(200);
  });

  test("another workspace's users are neither shown nor changed", async () => {
    const casey = await run(addUser(t.database, t.clock, { workspaceSlug: "acme", name: "Acme Only", email: "only@acme.example" }));
    expect((await globex.get("/admin/users")).text).not.toContain("Acme Only");
    expect((await globex.get(`/admin/users/${casey.id}`)).status).toBe(404);
    const page = await globex.get("/admin/users");
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)![1]!;
    expect((await globex.post(`/admin/users/${casey.id}/remove`, { _csrf: csrf, confirm: "yes" })).status).toBe(404);
    expect((await globex.post(`/admin/users/${casey.id}`, { _csrf: csrf, name: "Hacked", role: "admin" })).status).toBe(404);
    expect(await userId("only@acme.example")).toBe(casey.id);
  });
});

describe("/admin/settings", () => {
  test("the Slack token is write-only: shown as set or not set, stored sealed", async () => {
    expect((await ada.get("/admin/settings")).text).toContain('data-testid="slack-token-status">not set<');
    const saved = await ada.submit("/admin/settings", "/admin/settings", { slack_token: "xoxb-very-secret", launch_recap: "on" });
    expect(saved.status).toBe(303);
    const page = await ada.get("/admin/settings");
    expect(page.text).toContain('data-testid="slack-token-status">set<');
    expect(page.text).not.toContain("xoxb-very-secret");
    expect(page.text).toMatch(/name="launch_recap" value="on" checked/);
    const row = await settingsRow(acmeOrg);
    expect(row.t).toStartWith("v1:");
    expect(row.r).toBe(true);

    await ada.submit("/admin/settings", "/admin/settings", {}); // empty token keeps it; unticked box turns the recap off
    expect(await settingsRow(acmeOrg)).toEqual({ t: row.t, r: false });
    await ada.submit("/admin/settings", "/admin/settings", { clear_slack_token: "yes" });
    expect((await ada.get("/admin/settings")).text).toContain('data-testid="slack-token-status">not set<');
    expect((await settingsRow(globexOrg)).t).toBeNull();
  });
});

async function seedDeliveries(orgId: string, count: number, prefix: string) {
  const onboarding = `onb_${prefix}`;
  for (let i = 0; i < count; i++) {
    await t.query(
      "INSERT INTO deliveries (id, source, org_id, onboarding_id, kind, target, status, detail, attempts, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      `dlv_${prefix}_${String(i).padStart(3, "0")}`, `${prefix}-${i}`, orgId, onboarding, "reminder.slack", "U0X", i % 2 ? "failed" : "sent", i % 2 ? `reason-${prefix}-${i}` : null, 1 + (i % 3), 1_000_000 + i,
      1_000_000 + i,
    );
  }
}

describe("/admin/deliveries, /admin/activity, /admin/audit", () => {
  test("deliveries: filtered by status and onboarding, paginated, scoped to the workspace", async () => {
    await seedDeliveries(acmeOrg, 120, "acme");
    await seedDeliveries(globexOrg, 3, "globex");
    const first = await ada.get("/admin/deliveries");
    expect(first.text.match(/<tr><td>/g)!.length).toBe(50);
    expect(first.text).not.toContain("reason-globex");
    const seen = new Set<string>();
    let path: string | null = "/admin/deliveries?status=failed";
    let pages = 0;
    while (path) {
      const page = await ada.get(path);
      for (const m of page.text.matchAll(/reason-acme-(\d+)/g)) seen.add(m[1]!);
      expect(page.text).not.toContain("badge-sent");
      path = /<a href="([^"]+)">Older entries<\/a>/.exec(page.text)?.[1]?.replaceAll("&amp;", "&") ?? null;
      pages++;
    }
    expect(pages).toBe(2);
    expect(seen.size).toBe(60);
    const unknown = await ada.get("/admin/deliveries?onboarding=onb_globex");
    expect(unknown.text).toContain("No onboarding");
    expect(unknown.text).not.toContain("reason-globex");
  });

  test("activity: filtered by key and scoped to the workspace", async () => {
    const insert = (orgId: string, keyId: string, id: string) =>
      t.query(
        "INSERT INTO activity_entries (request_id, org_id, key_id, actor, method, route, status, address, duration_ms, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        id, orgId, keyId, "k", "GET", `/api/v1/${id}`, 200, "10.0.0.1", 2, 5_000_000,
      );
    await insert(acmeOrg, t.keyIds.live, "req_live");
    await insert(acmeOrg, t.keyIds.test, "req_test");
    await insert(globexOrg, t.keyIds.other, "req_other");
    await t.query(
      "INSERT INTO activity_entries (request_id, org_id, key_id, actor, method, route, status, address, duration_ms, at, repeat_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      "req_refused", acmeOrg, t.keyIds.live, "k", "GET", "/api/v1/req_refused", 429, "10.0.0.1", 0.1, 6_000_000, 318,
    );
    const all = await ada.get("/admin/activity");
    expect(all.text).toContain('<td class="num" data-testid="repeat-count">318</td>');
    expect(all.text).toContain("/api/v1/req_live");
    expect(all.text).toContain("/api/v1/req_test");
    expect(all.text).not.toContain("req_other");
    const one = await ada.get(`/admin/activity?key=${t.keyIds.test}`);
    expect(one.text).toContain("/api/v1/req_test");
    expect(one.text).not.toContain("/api/v1/req_live");
    const foreign = await ada.get(`/admin/activity?key=${t.keyIds.other}`);
    expect(foreign.text).not.toContain("req_other");
  });

  test("audit: every administrator action with who, what and when", async () => {
    await ada.submit("/admin/api-keys", "/admin/api-keys", { name: "audited", mode: "live" });
    const page = await ada.get("/admin/audit");
    for (const action of ["session.sign_in", "user.password_set", "user.add", "user.invite", "user.update", "user.remove", "settings.update", "api_key.create"]) {
      expect(page.text).toContain(`<code class="muted">${action}</code>`);
    }
    expect(page.text).toContain("ada@acme.example");
    expect((await globex.get("/admin/audit")).text).not.toContain("api_key.create");
  });
});

describe("deliveries and the audit log name what they are about", () => {
  test("deliveries: the onboarding by number and customer, the target by name, a reason's command as a link to Settings", async () => {
    const nora = await run(addUser(t.database, t.clock, { workspaceSlug: "acme", name: "Nora Named", email: "nora@acme.example", slackUserId: "U0NORA01" }));
    const customer = (await t.call("POST", "/api/v1/customers", { body: { name: "Initech Named" } })).body;
    const onboarding = (await t.call("POST", "/api/v1/onboardings", { body: { customer_id: customer.id, csm_id: nora.id } })).body;
    const noToken = "no Slack token: set the workspace's with `admin workspace update --slack-token-file` (or in the admin area) or SLACK_BOT_TOKEN";
    const rows: [string, string | null, string, string | null][] = [
      ["launch.slack_dm", nora.id, "failed", noToken],
      ["launch.calendar_entry", customer.id, "sent", "calendar entry created"],
      ["reminder.slack", "U0NORA01", "sent", "direct message posted"],
      ["reminder.email", "buyer@initech.example", "sent", "e-mail sent"],
      ["launch.slack_dm", "usr_01JD0000000000000000GHOST", "failed", "CSM 'usr_01JD0000000000000000GHOST' is not a user of this workspace"],
      ["launch.slack_dm", nora.id, "failed", `CSM Nora Named (${nora.id}) has no Slack user id`],
    ];
    for (const [i, [kind, target, status, detail]] of rows.entries()) {
      await t.query(
        "INSERT INTO deliveries (id, source, org_id, onboarding_id, kind, target, status, detail, attempts, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        `dlv_named_${i}`, `named-${i}`, acmeOrg, onboarding.id, kind, target, status, detail, 1, 9_000_000_000_000_000 - i, 9_000_000_000_000_000,
      );
    }
    const page = (await ada.get(`/admin/deliveries?onboarding=${onboarding.display_id}`)).text;
    const cells = [...page.matchAll(/<tr><td>(.*?)<\/tr>/gs)].map((m) => m[1]!);
    expect(cells).toHaveLength(rows.length);
    for (const row of cells) {
      expect(row).toContain(`<a href="/admin/onboardings/${onboarding.id}">#${onboarding.display_id}</a> <span class="muted">Initech Named</span>`);
    }
    expect(cells[0]).toContain("Launch message to the CSM (Slack)");
    expect(cells[0]).toContain(`<a href="/admin/users/${nora.id}">Nora Named</a> <span class="muted">nora@acme.example</span>`);
    expect(cells[1]).toContain(`Initech Named <span class="muted">customer #${customer.display_id}</span>`);
    expect(cells[2]).toContain(`<a href="/admin/users/${nora.id}">Nora Named</a> <span class="muted">Slack U0NORA01</span>`);
    expect(cells[3]).toContain("buyer@initech.example");
    // An id that names no one stays visible, cut to fit with the whole id in its tooltip.
    expect(cells[4]).toContain('<code class="id" title="usr_01JD0000000000000000GHOST">usr_01JD0000000000000000GHOST</code> <span class="muted">(no one here by that id)</span>');
    // The worker's advice for the command line becomes the page that does it.
    expect(cells[0]).toContain('<a href="/admin/settings">Settings</a>');
    expect(page).not.toContain("admin workspace update");
    expect(cells[5]).toContain(`add it on <a href="/admin/users/${nora.id}">their page</a>`);
  });

  test("audit: administrators by name, the operator's commands as operator (CLI), users and endpoints by name and URL", async () => {
    const { createAuditStore, OPERATOR_ACTOR } = await import("../../shared/audit.store.ts");
    await run(createAuditStore(t.database.sql).insert({ orgId: acmeOrg, actorUserId: null, actor: OPERATOR_ACTOR, action: "api_key.create", target: "crm (svc_AbCdEfGh…)", detail: "mode live, tier paid", address: "root@build-7", at: t.clock.nowMicros() }));
    // An endpoint named by id (entries before this release) is shown by its URL.
    await ada.submit("/admin/webhooks", "/admin/webhooks", { url: "https://hooks.acme.example/named-in-audit", events: "*" });
    const [endpoint] = await t.query<{ id: string }>("SELECT id FROM webhook_endpoints WHERE url = ?", "https://hooks.acme.example/named-in-audit");
    await run(createAuditStore(t.database.sql).insert({ orgId: acmeOrg, actorUserId: adaId, actor: "ada@acme.example", action: "webhook_endpoint.recover", target: endpoint!.id, detail: "since 2026-01-01T00:00:00Z: 0 queued", address: "127.0.0.1", at: t.clock.nowMicros() }));
    await ada.submit("/admin/users", "/admin/users", { name: "Olga Audited", email: "olga@acme.example", role: "member" });

    const page = (await ada.get("/admin/audit")).text;
    const rows = [...page.matchAll(/<tr><td>(.*?)<\/tr>/gs)].map((m) => m[1]!);
    const added = rows.find((r) => r.includes("olga@acme.example"))!;
    expect(added).toContain(`<a href="/admin/users/${adaId}">ada</a> <span class="muted">ada@acme.example</span>`);
    expect(added).toContain('Added a user<br><code class="muted">user.add</code>');
    expect(added).toMatch(/<a href="\/admin\/users\/usr_[0-9A-Z]+">Olga Audited<\/a> <span class="muted">olga@acme.example<\/span>/);
    const operator = rows.find((r) => r.includes("crm (svc_AbCdEfGh…)"))!;
    expect(operator).toContain("<strong>operator (CLI)</strong>");
    expect(operator).toContain("root@build-7");
    const recovered = rows.find((r) => r.includes("webhook_endpoint.recover"))!;
    expect(recovered).toContain("https://hooks.acme.example/named-in-audit");
    expect(recovered).not.toContain(endpoint!.id);
  });
});

describe("/admin/webhooks", () => {
  const endpointOf = async (client: AdminClient, url: string) => {
    const created = await client.submit("/admin/webhooks", "/admin/webhooks", { url, events: "*" });
    expect(created.status).toBe(200);
    return (await t.query<{ id: string }>("SELECT id FROM webhook_endpoints WHERE url = ?", url))[0]!.id;
  };

  test("the secret is sealed at rest; markup in a description is escaped", async () => {
    const created = await ada.submit("/admin/webhooks", "/admin/webhooks", { url: "https://hooks.acme.example/sealed", description: "<b>CRM</b>", events: "customer.created" });
    const secret = /data-testid="webhook-secret">(whsec_[^<]+)</.exec(created.text)![1]!;
    const [row] = await t.query<{ secret: string; enabled_events: string }>("SELECT secret, enabled_events FROM webhook_endpoints WHERE url = ?", "https://hooks.acme.example/sealed");
    expect(row!.secret).not.toContain(secret.slice("whsec_".length));
    expect(JSON.parse(row!.enabled_events)).toEqual(["customer.created"]);
    const list = await ada.get("/admin/webhooks");
    expect(list.text).toContain("&lt;b&gt;CRM&lt;/b&gt;");
    expect(list.text).not.toContain(secret);
  });

  test("another workspace's administrator can neither see nor act on an endpoint", async () => {
    const id = await endpointOf(ada, "https://hooks.acme.example/apart");
    expect((await globex.get("/admin/webhooks")).text).not.toContain("hooks.acme.example");
    expect((await globex.get(`/admin/webhooks/${id}`)).status).toBe(404);
    for (const action of ["status", "ping", "rotate", "recover", "delete"]) {
      const answer = await globex.submit("/admin/webhooks", `/admin/webhooks/${id}/${action}`, { status: "disabled", since: "2026-01-01T00:00", confirm: "yes" });
      expect({ action, status: answer.status }).toEqual({ action, status: 404 });
    }
    const [row] = await t.query<{ status: string; secret: string }>("SELECT status, secret FROM webhook_endpoints WHERE id = ?", id);
    expect(row!.status).toBe("enabled");
  });

  test("a form without the session's CSRF token changes nothing", async () => {
    const id = await endpointOf(ada, "https://hooks.acme.example/csrf");
    const forged = await ada.post(`/admin/webhooks/${id}/delete`, { confirm: "yes" });
    expect(forged.status).toBe(403);
    expect(await t.count("webhook_endpoints", "id = ?", id)).toBe(1);
  });

  test("a recovery start that is not a date and time is refused on the page", async () => {
    const id = await endpointOf(ada, "https://hooks.acme.example/recover");
    const answer = await ada.submit(`/admin/webhooks/${id}`, `/admin/webhooks/${id}/recover`, { since: "yesterday" });
    expect(answer.status).toBe(400);
    expect(answer.text).toContain("Give the moment to recover from as a date and time (UTC).");
  });
});
