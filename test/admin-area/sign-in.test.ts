import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { LOGIN_LIMITS } from "../../api/admin-area/admin-area.service.ts";
import { adminClient, inviteAdmin, invitePath, PASSWORD, signedInAdmin } from "../support/admin-client.ts";
import { createTestApp, ManualClock, type TestApp } from "../support/test-app.ts";
import { run } from "../../shared/db/flow.ts";
import { addUser } from "../../shared/workspaces.ts";
import { issueInvite } from "../../shared/invites.ts";

const clock = new ManualClock();
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ clock });
});
afterAll(async () => {
  await t.close();
});

const GENERIC = "Sign-in failed. Check your e-mail and password, or try again later.";

describe("invite and set password", () => {
  test("the link opens a page with a New password field and a Set password button, and works once", async () => {
    const { invite } = await inviteAdmin(t.database, "acme", "first@acme.example", { clock });
    expect(invite.url).toStartWith("http://127.0.0.1:3000/admin/invite/");
    const client = adminClient(t.app);
    const page = await client.get(invitePath(invite.url));
    expect(page.status).toBe(200);
    expect(page.text).toContain('<label for="new-password">New password</label>');
    expect(page.text).toContain(">Set password</button>");
    expect(page.headers.get("referrer-policy")).toBe("same-origin");

    expect((await client.post(invitePath(invite.url), { password: "short" })).status).toBe(400);
    const set = await client.post(invitePath(invite.url), { password: PASSWORD });
    expect(set.status).toBe(303);
    expect(set.location).toBe("/admin/login?password_set");
    expect((await client.get(invitePath(invite.url))).status).toBe(404);
    expect((await client.post(invitePath(invite.url), { password: "another long password" })).status).toBe(404);

    // Only a hash of the token is stored.
    const token = invitePath(invite.url).split("/").pop()!;
    const stored = await t.query<{ token_hash: string }>("SELECT token_hash FROM invites");
    expect(stored.some((r) => r.token_hash === token)).toBe(false);
  });

  test("a link older than 24 hours no longer works; a newer link replaces an older one", async () => {
    const { user, invite } = await inviteAdmin(t.database, "acme", "late@acme.example", { clock });
    clock.advanceSeconds(24 * 3600 - 60);
    expect((await adminClient(t.app).get(invitePath(invite.url))).status).toBe(200);
    clock.advanceSeconds(61);
    expect((await adminClient(t.app).get(invitePath(invite.url))).status).toBe(404);

    const first = await run(issueInvite(t.database, clock, user, "http://127.0.0.1:3000"));
    const second = await run(issueInvite(t.database, clock, user, "http://127.0.0.1:3000"));
    expect((await adminClient(t.app).get(invitePath(first.url))).status).toBe(404);
    expect((await adminClient(t.app).get(invitePath(second.url))).status).toBe(200);
  });

  test("setting a password from another site is refused", async () => {
    const { invite } = await inviteAdmin(t.database, "acme", "xsite@acme.example", { clock });
    const forged = await adminClient(t.app).post(invitePath(invite.url), { password: PASSWORD }, { origin: "https://evil.example" });
    expect(forged.status).toBe(403);
    expect((await adminClient(t.app).get(invitePath(invite.url))).status).toBe(200);
  });
});

describe("sign-in", () => {
  test("the page has E-mail and Password fields and a Sign in button", async () => {
    const page = await adminClient(t.app).get("/admin/login");
    expect(page.text).toContain('<label for="email">E-mail</label>');
    expect(page.text).toContain('<label for="password">Password</label>');
    expect(page.text).toContain(">Sign in</button>");
  });

  test("passwords are stored with argon2id", async () => {
    await signedInAdmin(t.app, t.database, "acme", "argon@acme.example", clock);
    const [row] = await t.query<{ password_hash: string }>("SELECT password_hash FROM users WHERE email = 'argon@acme.example'");
    expect(row!.password_hash).toStartWith("$argon2id$");
  });

  test("every failure gives one generic message", async () => {
    await signedInAdmin(t.app, t.database, "acme", "grace@acme.example", clock);
    await run(addUser(t.database, clock, { workspaceSlug: "acme", name: "Member", email: "member@acme.example" }));
    const client = adminClient(t.app);
    const failures = [
      await client.signIn("grace@acme.example", "wrong password here"),
      await client.signIn("nobody@acme.example", PASSWORD),
      await client.signIn("member@acme.example", PASSWORD),
      await client.signIn("", ""),
    ];
    for (const failure of failures) {
      expect(failure.status).toBe(401);
      expect(failure.text).toContain(GENERIC);
      expect(failure.headers.get("set-cookie")).toBeNull();
    }
    expect(client.cookie).toBeNull();
    const failed = await t.query<{ actor: string }>("SELECT actor FROM audit_log WHERE action = 'session.sign_in_failed'");
    expect(failed).toEqual([{ actor: "grace@acme.example" }]);
  });

  test("the session cookie is HttpOnly and SameSite=Lax; its token is stored hashed", async () => {
    const { invite } = await inviteAdmin(t.database, "acme", "cookie@acme.example", { clock });
    const client = adminClient(t.app);
    await client.post(invitePath(invite.url), { password: PASSWORD });
    const signIn = await client.signIn("cookie@acme.example", PASSWORD);
    const cookie = signIn.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^admin_session=[A-Za-z0-9_-]{43};/);
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Lax");
    expect(cookie).not.toContain("Secure");
    const token = cookie.split(";")[0]!.split("=")[1]!;
    expect(await t.count("admin_sessions", "token_hash = ?", token)).toBe(0);
    expect((await client.get("/admin/api-keys")).status).toBe(200);
  });

  test("attempts are limited per account: past the limit even the right password fails, generically", async () => {
    await signedInAdmin(t.app, t.database, "acme", "target@acme.example", clock);
    const client = adminClient(t.app);
    for (let i = 0; i < LOGIN_LIMITS.account; i++) expect((await client.signIn("target@acme.example", `wrong ${i} password`)).status).toBe(401);
    const blocked = await client.signIn("target@acme.example", PASSWORD);
    expect(blocked.status).toBe(401);
    expect(blocked.text).toContain(GENERIC);
    clock.advanceSeconds(15 * 60 + 1);
    expect((await client.signIn("target@acme.example", PASSWORD)).status).toBe(303);
  }, 30_000);

  test("attempts are limited per address too, whatever account they try", async () => {
    const own = await createTestApp({ clock });
    try {
      await signedInAdmin(own.app, own.database, "acme", "victim@acme.example", clock);
      const client = adminClient(own.app);
      for (let i = 0; i < LOGIN_LIMITS.address; i++) expect((await client.signIn(`guess${i}@acme.example`, "a guessed password")).status).toBe(401);
      const blocked = await client.signIn("victim@acme.example", PASSWORD);
      expect(blocked.status).toBe(401);
      expect(blocked.text).toContain(GENERIC);
    } finally {
      await own.close();
    }
  }, 30_000);

  test("sign-out ends the session", async () => {
    const { client } = await signedInAdmin(t.app, t.database, "acme", "leaver@acme.example", clock);
    const cookie = client.cookie;
    const out = await client.submit("/admin/api-keys", "/admin/logout", {});
    expect(out.status).toBe(303);
    expect(out.headers.get("set-cookie")).toContain("Max-Age=0");
    const replay = await client.get("/admin/api-keys", { cookie: cookie! });
    expect(replay.status).toBe(303);
    expect(replay.location).toBe("/admin/login");
  });

  test("sessions end after 12 hours idle, and after 7 days whatever the use", async () => {
    const idle = await signedInAdmin(t.app, t.database, "acme", "idle@acme.example", clock);
    clock.advanceSeconds(11 * 3600);
    expect((await idle.client.get("/admin/api-keys")).status).toBe(200);
    clock.advanceSeconds(11 * 3600); // 11 h since the last request: still alive
    expect((await idle.client.get("/admin/api-keys")).status).toBe(200);
    clock.advanceSeconds(12 * 3600 + 1);
    expect((await idle.client.get("/admin/api-keys")).location).toBe("/admin/login");

    const busy = await signedInAdmin(t.app, t.database, "acme", "busy@acme.example", clock);
    for (let hours = 0; hours < 7 * 24 - 10; hours += 10) {
      clock.advanceSeconds(10 * 3600);
      expect((await busy.client.get("/admin/api-keys")).status).toBe(200);
    }
    clock.advanceSeconds(10 * 3600);
    expect((await busy.client.get("/admin/api-keys")).location).toBe("/admin/login");
  });

  test("on https the cookie is Secure with the __Host- prefix", async () => {
    const secure = await createTestApp({ clock, publicUrl: "https://onboarding.example" });
    try {
      const { invite } = await inviteAdmin(secure.database, "acme", "tls@acme.example", { clock, publicUrl: "https://onboarding.example" });
      expect(invite.url).toStartWith("https://onboarding.example/admin/invite/");
      const client = adminClient(secure.app, { origin: "https://onboarding.example" });
      expect((await client.post(invitePath(invite.url), { password: PASSWORD })).status).toBe(303);
      const signIn = await client.signIn("tls@acme.example", PASSWORD);
      const cookie = signIn.headers.get("set-cookie")!;
      expect(cookie).toStartWith("__Host-admin_session=");
      expect(cookie).toContain("Secure");
      expect(cookie).toContain("Path=/");
      expect(cookie).not.toContain("Domain");
    } finally {
      await secure.close();
    }
  });
});
