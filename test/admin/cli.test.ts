import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import { freshPostgresDatabase, testPostgresUrl } from "../support/postgres.ts";

const dir = mkdtempSync(join(tmpdir(), "onboarding-admin-"));
const env = { ...process.env, DATABASE_URL: `file:${join(dir, "admin.sqlite")}`, DATA_DIR: dir, SECRET_KEY: "k".repeat(40) };
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function admin(...args: string[]) {
  const result = Bun.spawnSync([process.execPath, "admin/cli.ts", ...args], { env, stdout: "pipe", stderr: "pipe" });
  const stdout = result.stdout.toString();
  const lines = stdout.trim().split("\n");
  return { code: result.exitCode, stdout, stderr: result.stderr.toString(), json: () => JSON.parse(lines[lines.length - 1]!) };
}

describe("npm run admin", () => {
  test("workspace create and list, with --json", () => {
    const created = admin("workspace", "create", "--slug", "acme", "--name", "Acme Inc", "--json");
    expect(created.code).toBe(0);
    expect(created.json()).toMatchObject({ object: "workspace", slug: "acme", name: "Acme Inc" });
    expect(created.json().id).toMatch(/^org_/);
    expect(admin("workspace", "list", "--json").json().data.map((o: { slug: string }) => o.slug)).toEqual(["acme"]);
    // The older spelling still works.
    expect(admin("org", "list", "--json").json().data.map((o: { slug: string }) => o.slug)).toEqual(["acme"]);
    expect(admin("key", "list", "--org", "acme", "--json").code).toBe(0);
  });

  test("a taken slug fails with the reason on stderr", () => {
    const again = admin("workspace", "create", "--slug", "acme", "--name", "Again", "--json");
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain("already exists");
  });

  test("key create shows the secret once; key list never shows it; revoke", () => {
    const created = admin("key", "create", "--workspace", "acme", "--name", "crm", "--tier", "paid", "--json").json();
    expect(created).toMatchObject({ object: "api_key", name: "crm", mode: "live", rate_limit_tier: "paid" });
    expect(created.key).toMatch(/^svc_[0-9A-Za-z]{40}$/);
    expect(created.prefix).toBe(created.key.slice(0, 12));
    const test = admin("key", "create", "--workspace", "acme", "--name", "ci", "--test", "--json").json();
    expect(test.key).toMatch(/^svc_test_/);
    expect(test.mode).toBe("test");

    const list = admin("key", "list", "--workspace", "acme", "--json");
    expect(list.stdout).not.toContain(created.key);
    const listed = list.json().data.find((k: { id: string }) => k.id === created.id);
    expect(listed).toMatchObject({ name: "crm", prefix: created.prefix, revoked_at: null, last_used_at: null, request_count: 0 });
    expect(listed).not.toHaveProperty("key");
    expect(listed).not.toHaveProperty("key_hash");

    const revoked = admin("key", "revoke", "--id", created.id, "--json").json();
    expect(revoked.revoked_at).not.toBeNull();
  });

  test("unknown workspaces, keys and commands fail non-zero", () => {
    expect(admin("key", "list", "--workspace", "nope", "--json").code).not.toBe(0);
    expect(admin("key", "revoke", "--id", "key_nope").code).not.toBe(0);
    expect(admin("frobnicate").code).not.toBe(0);
    expect(admin("key", "create", "--workspace", "acme").stderr).toContain("--name is required");
  });
});

describe("workspace settings, users and reports", () => {
  test("workspace update seals the Slack token and switches the launch recap", () => {
    const updated = admin("workspace", "update", "--slug", "acme", "--slack-token", "xoxb-secret-token", "--launch-recap", "on", "--json");
    expect(updated.code).toBe(0);
    expect(updated.json()).toMatchObject({ slug: "acme", launch_recap_enabled: true, slack_token_set: true });
    const { Database } = require("bun:sqlite");
    const db = new Database(join(dir, "admin.sqlite"));
    const stored = db.query("SELECT slack_token_encrypted AS t FROM organizations WHERE slug = 'acme'").get() as { t: string };
    db.close();
    expect(stored.t).toStartWith("v1:");
    expect(stored.t).not.toContain("xoxb-secret-token");
    expect(admin("workspace", "update", "--slug", "acme", "--launch-recap", "maybe").code).not.toBe(0);
    expect(admin("workspace", "update", "--slug", "acme").stderr).toContain("Nothing to update");
  });

  test("the Slack token can come from standard input or a file, kept out of the process list", () => {
    const viaStdin = Bun.spawnSync([process.execPath, "admin/cli.ts", "org", "update", "--slug", "acme", "--slack-token-file", "-", "--json"], {
      env,
      stdin: new TextEncoder().encode("xoxb-from-stdin\n"),
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(viaStdin.exitCode).toBe(0);
    expect(viaStdin.stderr.toString()).toBe(""); // no warning: nothing secret was on the command line
    const file = join(dir, "slack-token.txt");
    writeFileSync(file, "xoxb-from-file\n");
    const viaFile = admin("org", "update", "--slug", "acme", "--slack-token-file", file, "--json");
    expect(viaFile.code).toBe(0);
    expect(viaFile.json()).toMatchObject({ slack_token_set: true });
    const { Database } = require("bun:sqlite");
    const { decryptSecret } = require("../../shared/secrets.ts");
    const db = new Database(join(dir, "admin.sqlite"));
    const stored = db.query("SELECT slack_token_encrypted AS t FROM organizations WHERE slug = 'acme'").get() as { t: string };
    db.close();
    expect(decryptSecret(env.SECRET_KEY, stored.t)).toBe("xoxb-from-file");
    expect(admin("org", "update", "--slug", "acme", "--slack-token-file", join(dir, "missing.txt")).stderr).toContain("cannot read --slack-token-file");
    // The inline form still works, with a warning about ps.
    expect(admin("org", "update", "--slug", "acme", "--slack-token", "xoxb-inline").stderr).toContain("visible to other users");
  });

  test("without SECRET_KEY a Slack token is refused, not stored in clear", () => {
    const result = Bun.spawnSync([process.execPath, "admin/cli.ts", "workspace", "update", "--slug", "acme", "--slack-token", "xoxb-x"], {
      env: { ...env, SECRET_KEY: "", DATA_DIR: join(dir, "nowhere") },
      stderr: "pipe",
    });
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr.toString()).toContain("SECRET_KEY");
  });

  test("user add and list", () => {
    const added = admin("user", "add", "--workspace", "acme", "--name", "Casey", "--email", "casey@acme.example", "--slack-user-id", "U0CASEY1", "--json").json();
    expect(added).toMatchObject({ object: "user", name: "Casey", email: "casey@acme.example", slack_user_id: "U0CASEY1" });
    expect(added.id).toMatch(/^usr_/);
    expect(admin("user", "list", "--workspace", "acme", "--json").json().data.map((u: { id: string }) => u.id)).toContain(added.id);
    expect(admin("user", "add", "--workspace", "acme", "--name", "X", "--email", "nope").code).not.toBe(0);
    expect(added.role).toBe("member");
    expect(added.invite_url).toBeNull();
  });

  test("user add --role admin answers with a one-time invite link under PUBLIC_URL; reset-password issues a new one", () => {
    const added = admin("user", "add", "--workspace", "acme", "--name", "Ada", "--email", "ada@acme.example", "--role", "admin", "--json");
    expect(added.code).toBe(0);
    const json = added.json();
    expect(json).toMatchObject({ object: "user", role: "admin", email: "ada@acme.example" });
    expect(json.invite_url).toMatch(/^http:\/\/127\.0\.0\.1:3000\/admin\/invite\/[A-Za-z0-9_-]{43}$/);
    const { Database } = require("bun:sqlite");
    const db = new Database(join(dir, "admin.sqlite"));
    const stored = db.query("SELECT token_hash FROM invites").all() as { token_hash: string }[];
    db.close();
    expect(stored.length).toBe(1);
    expect(stored[0]!.token_hash).not.toBe(json.invite_url.split("/").pop());

    const reset = Bun.spawnSync([process.execPath, "admin/cli.ts", "user", "reset-password", "--workspace", "acme", "--email", "ada@acme.example", "--json"], {
      env: { ...env, PUBLIC_URL: "https://onboarding.example" },
      stdout: "pipe",
    });
    const link = JSON.parse(reset.stdout.toString().trim().split("\n").pop()!).invite_url;
    expect(link).toStartWith("https://onboarding.example/admin/invite/");
    expect(link).not.toBe(json.invite_url);
    expect(admin("user", "reset-password", "--workspace", "acme", "--email", "casey@acme.example").stderr).toContain("--role admin");
    expect(admin("user", "add", "--workspace", "acme", "--name", "Z", "--email", "z@acme.example", "--role", "owner").code).not.toBe(0);
  });

  test("timeline and effects lists answer for a workspace, and refuse unknown references", () => {
    expect(admin("effects", "list", "--workspace", "acme", "--json").json()).toEqual({ object: "list", data: [] });
    expect(admin("timeline", "list", "--workspace", "acme", "--customer", "1", "--json").stderr).toContain("No customer '1'");
  });

  test("retention status lists each table's rows, oldest row, bytes and lifetime; retention run prunes what is expired", () => {
    const { Database } = require("bun:sqlite");
    const db = new Database(join(dir, "admin.sqlite"));
    const org = (db.query("SELECT id FROM organizations WHERE slug = 'acme'").get() as { id: string }).id;
    db.query(
      "INSERT INTO audit_log (org_id, actor_user_id, actor, action, target, detail, address, at) VALUES (?, NULL, 'ops', 'test.expired', NULL, NULL, NULL, 1000000)",
    ).run(org);
    db.close();
    const status = admin("retention", "status", "--json").json();
    const audit = status.data.find((row: { table: string }) => row.table === "audit_log");
    // The expired entry, beside the operator's own commands above (each audited when it happened).
    expect(audit).toMatchObject({ table: "audit_log", oldest: "1970-01-01T00:00:01.000000Z", lifetime: "365d" });
    expect(audit.rows).toBeGreaterThan(1);
    expect(audit.bytes).toBeGreaterThan(0);
    expect(admin("retention", "status").stdout).toContain("idempotency_keys");
    const ran = admin("retention", "run", "--json").json();
    expect(ran).toMatchObject({ object: "retention_run", pruned: { audit_log: 1 }, total: 1 });
    expect(admin("retention", "run", "--json").json().total).toBe(0);
    // A file this version made is incremental already: nothing to convert.
    expect(admin("retention", "vacuum", "--json").json()).toMatchObject({ object: "retention_vacuum", converted: false });
    // A bad lifetime stops the command naming its variable.
    const bad = Bun.spawnSync([process.execPath, "admin/cli.ts", "retention", "run"], { env: { ...env, AUDIT_RETENTION: "1y" }, stderr: "pipe" });
    expect(bad.exitCode).not.toBe(0);
    expect(bad.stderr.toString()).toContain("AUDIT_RETENTION must be a duration");
  });

  test("activity list shows a workspace's entries newest first, a key's refusals in one second as one entry with its count", () => {
    const { Database } = require("bun:sqlite");
    const db = new Database(join(dir, "admin.sqlite"));
    const org = (db.query("SELECT id FROM organizations WHERE slug = 'acme'").get() as { id: string }).id;
    const insert = db.query(
      "INSERT INTO activity_entries (request_id, org_id, key_id, actor, method, route, status, address, duration_ms, at, repeat_count) VALUES (?, ?, 'key_x', 'hammer', 'GET', '/api/v1/me', ?, NULL, 0.2, ?, ?)",
    );
    insert.run("req_cli_served", org, 200, 1_795_000_000_000_000, 1);
    insert.run("req_cli_refused", org, 429, 1_795_000_001_000_000, 417);
    db.close();
    const listed = admin("activity", "list", "--workspace", "acme", "--json").json();
    expect(listed.data.map((e: { request_id: string; status: number; repeat: number }) => [e.request_id, e.status, e.repeat])).toEqual([
      ["req_cli_refused", 429, 417],
      ["req_cli_served", 200, 1],
    ]);
    expect(admin("activity", "list", "--workspace", "acme").stdout).toContain("417");
    expect(admin("activity", "list", "--workspace", "acme", "--limit", "0").code).not.toBe(0);
  });

  test("webhooks list and webhooks attempts show a workspace's endpoints (never a secret) and their tries", () => {
    const { Database } = require("bun:sqlite");
    const db = new Database(join(dir, "admin.sqlite"));
    const org = (db.query("SELECT id FROM organizations WHERE slug = 'acme'").get() as { id: string }).id;
    db.query(
      `INSERT INTO webhook_endpoints (id, org_id, url, description, enabled_events, status, disabled_reason, secret, created_at, updated_at)
       VALUES ('we_01JD000000000000000000CL1X', ?, 'https://hooks.example.com/cli', NULL, '["onboarding.*"]', 'disabled', 'The endpoint answered 410 Gone on 2026-11-24T10:00:00.000000Z.', 'v1:sealed', 1795000000000000, 1795000000000000)`,
    ).run(org);
    db.query(
      `INSERT INTO webhook_attempts (id, org_id, endpoint_id, event_id, attempt, status_code, duration_ms, error, response_excerpt, created_at, next_attempt_at)
       VALUES ('wha_01JD00000000000000000CLI1', ?, 'we_01JD000000000000000000CL1X', 'evt_01JD00000000000000000CLI01', 1, 410, 12.5, 'answered 410', 'gone', 1795000001000000, NULL)`,
    ).run(org);
    db.close();
    const endpoints = admin("webhooks", "list", "--workspace", "acme", "--json").json();
    expect(endpoints.data.map((e: Record<string, unknown>) => [e.id, e.status, e.enabled_events, "secret" in e])).toEqual([["we_01JD000000000000000000CL1X", "disabled", "onboarding.*", false]]);
    expect(admin("webhooks", "list", "--workspace", "acme").stdout).toContain("410 Gone");
    const attempts = admin("webhooks", "attempts", "--workspace", "acme", "--endpoint", "we_01JD000000000000000000CL1X", "--json").json();
    expect(attempts.data.map((a: Record<string, unknown>) => [a.event_id, a.attempt, a.status_code, a.error])).toEqual([["evt_01JD00000000000000000CLI01", 1, 410, "answered 410"]]);
    const missing = admin("webhooks", "attempts", "--workspace", "acme", "--endpoint", "we_01JD0000000000000000000000");
    expect([missing.code, missing.stderr]).toEqual([1, expect.stringContaining("No such webhook endpoint")]);
  });

  test("report phase-durations: the workspace's days per phase and launches, as the API's report answers them", () => {
    const { Database } = require("bun:sqlite");
    const db = new Database(join(dir, "admin.sqlite"));
    const org = (db.query("SELECT id FROM organizations WHERE slug = 'acme'").get() as { id: string }).id;
    const day = 86_400_000_000;
    const start = Date.UTC(2026, 9, 1) * 1000;
    const visit = db.query(
      `INSERT INTO phase_transitions (source, org_id, customer_id, onboarding_id, from_phase, to_phase, at, actor, phase_entered_at, sla_suspended_seconds, active_seconds, first_launch, launch_delay_seconds)
       VALUES (?, ?, 'cus_cli', ?, 'review', 'launch', ?, 'cli', ?, 0, ?, 1, ?)`,
    );
    visit.run("cli-1", org, "onb_cli1", start + 3 * day, start, 3 * 86_400, 0);
    visit.run("cli-2", org, "onb_cli2", start + 5 * day, start, 5 * 86_400, 2 * 86_400);
    db.close();
    const report = admin("report", "phase-durations", "--workspace", "acme", "--from", "2026-10-01T00:00:00Z", "--to", "2026-10-20T00:00:00Z", "--json").json();
    expect(report.phases).toEqual([{ phase: "review", visits: 2, mean_active_seconds: 4 * 86_400, median_active_seconds: 3 * 86_400, p90_active_seconds: 5 * 86_400 }]);
    expect(report.launches).toEqual({ count: 2, on_time: 1, late: 1, on_time_rate: 0.5, mean_delay_seconds: 2 * 86_400 });
    const text = admin("report", "phase-durations", "--workspace", "acme", "--from", "2026-10-01T00:00:00Z", "--to", "2026-10-20T00:00:00Z").stdout;
    expect(text).toContain("review");
    expect(text).toContain("Launches: 2 (1 on time, 1 late, 50% on time, late by 2.0 days on average).");
    const bad = admin("report", "phase-durations", "--workspace", "acme", "--from", "October");
    expect([bad.code, bad.stderr]).toEqual([1, expect.stringContaining("--from must be an RFC 3339 date-time")]);
  });
});

describe("the operator's commands in the workspace's audit log", () => {
  const auditOf = (slug: string) => {
    const { Database } = require("bun:sqlite");
    const db = new Database(join(dir, "admin.sqlite"));
    const rows = db
      .query("SELECT a.actor, a.actor_user_id, a.action, a.target, a.detail, a.address FROM audit_log a JOIN organizations o ON o.id = a.org_id WHERE o.slug = ? ORDER BY a.id")
      .all(slug) as { actor: string; actor_user_id: string | null; action: string; target: string | null; detail: string | null; address: string | null }[];
    db.close();
    return rows;
  };

  test("every command that changes a workspace is written as the operator's, in the change's transaction", () => {
    expect(admin("workspace", "create", "--slug", "audited", "--name", "Audited Inc", "--json").code).toBe(0);
    const key = admin("key", "create", "--workspace", "audited", "--name", "crm", "--tier", "paid", "--json").json();
    expect(admin("key", "revoke", "--id", key.id, "--json").code).toBe(0);
    expect(admin("key", "revoke", "--id", key.id, "--json").code).toBe(0); // already revoked: nothing changes, nothing is logged
    expect(admin("user", "add", "--workspace", "audited", "--name", "Casey", "--email", "casey@audited.example", "--json").code).toBe(0);
    expect(admin("user", "add", "--workspace", "audited", "--name", "Ada", "--email", "ada@audited.example", "--role", "admin", "--json").code).toBe(0);
    expect(admin("user", "reset-password", "--workspace", "audited", "--email", "ada@audited.example", "--json").code).toBe(0);
    expect(admin("workspace", "update", "--slug", "audited", "--launch-recap", "on", "--json").code).toBe(0);
    // Refused commands write nothing.
    expect(admin("user", "add", "--workspace", "audited", "--name", "Again", "--email", "casey@audited.example").code).toBe(1);

    const entries = auditOf("audited");
    expect(entries.map((e) => [e.action, e.target, e.detail])).toEqual([
      ["workspace.create", "Audited Inc (audited)", null],
      ["api_key.create", `crm (${key.prefix}…)`, "mode live, tier paid"],
      ["api_key.revoke", `crm (${key.prefix}…)`, null],
      ["user.add", "casey@audited.example", "role member"],
      ["user.add", "ada@audited.example", "role admin"],
      ["user.invite", "ada@audited.example", null],
      ["user.invite", "ada@audited.example", "new password link"],
      ["settings.update", null, "launch recap on"],
    ]);
    const { hostname } = require("node:os");
    for (const entry of entries) {
      expect(entry).toMatchObject({ actor: "operator (CLI)", actor_user_id: null });
      expect(entry.address).toEndWith(`@${hostname()}`);
    }
    // Another workspace's log holds none of it.
    expect(auditOf("acme").some((e) => e.target === "casey@audited.example")).toBe(false);
  });
});

describe("the installation's settings, as npm start wrote them (DATA_DIR/settings.json)", () => {
  const home = mkdtempSync(join(tmpdir(), "onboarding-admin-settings-"));
  afterAll(() => rmSync(home, { recursive: true, force: true }));
  // A terminal with none of the server's variables: only DATA_DIR, or not even that.
  const { PORT: _p, HOST: _h, PUBLIC_URL: _u, DATABASE_URL: _d, SECRET_KEY: _s, ADMIN_TOKEN: _a, REDIS_URL: _r, QUEUE_PREFIX: _q, DATA_DIR: _dd, ...bare } = process.env;
  const cli = (extra: Record<string, string>, ...args: string[]) => {
    const result = Bun.spawnSync([process.execPath, "admin/cli.ts", ...args], { env: { ...bare, DATA_DIR: home, ...extra }, stdout: "pipe", stderr: "pipe" });
    const lines = result.stdout.toString().trim().split("\n");
    return { code: result.exitCode, stderr: result.stderr.toString(), json: () => JSON.parse(lines[lines.length - 1]!) };
  };
  const secretKey = "z".repeat(44);
  beforeAll(() => {
    writeFileSync(join(home, "settings.json"), JSON.stringify({ PORT: "4123", HOST: "127.0.0.1", DATABASE_URL: `file:${join(home, "installed.sqlite")}`, QUEUE_PREFIX: "bull" }));
    writeFileSync(join(home, "secrets.json"), JSON.stringify({ SECRET_KEY: secretKey, ADMIN_TOKEN: "t".repeat(32) }));
  });

  test("invite links start at the installation's port, SECRET_KEY and the database are found, without one variable but DATA_DIR", () => {
    expect(cli({}, "workspace", "create", "--slug", "home", "--name", "Home", "--json").code).toBe(0);
    const added = cli({}, "user", "add", "--workspace", "home", "--name", "Ada", "--email", "ada@home.example", "--role", "admin", "--json");
    expect(added.code).toBe(0);
    expect(new URL(added.json().invite_url).origin).toBe("http://127.0.0.1:4123");
    expect(added.stderr).toBe(""); // the origin is the installation's, not a guess: no note

    // SECRET_KEY came from secrets.json: the token is sealed with it.
    const sealed = Bun.spawnSync([process.execPath, "admin/cli.ts", "workspace", "update", "--slug", "home", "--slack-token-file", "-", "--json"], {
      env: { ...bare, DATA_DIR: home },
      stdin: new TextEncoder().encode("xoxb-home\n"),
      stdout: "pipe",
      stderr: "pipe",
    });
    expect([sealed.exitCode, sealed.stderr.toString()]).toEqual([0, ""]);
    const { Database } = require("bun:sqlite");
    const { decryptSecret } = require("../../shared/secrets.ts");
    const db = new Database(join(home, "installed.sqlite"));
    const row = db.query("SELECT slack_token_encrypted AS t FROM organizations WHERE slug = 'home'").get() as { t: string };
    db.close();
    expect(decryptSecret(secretKey, row.t)).toBe("xoxb-home");
  });

  test("a variable in the environment wins over the file; PUBLIC_URL in the file wins over HOST and PORT", () => {
    const byEnv = cli({ PORT: "5000" }, "user", "reset-password", "--workspace", "home", "--email", "ada@home.example", "--json");
    expect(new URL(byEnv.json().invite_url).origin).toBe("http://127.0.0.1:5000");
    const settings = JSON.parse(require("node:fs").readFileSync(join(home, "settings.json"), "utf8"));
    writeFileSync(join(home, "settings.json"), JSON.stringify({ ...settings, PUBLIC_URL: "https://onboarding.home.example" }));
    const byFile = cli({}, "user", "reset-password", "--workspace", "home", "--email", "ada@home.example", "--json");
    expect(new URL(byFile.json().invite_url).origin).toBe("https://onboarding.home.example");
    writeFileSync(join(home, "settings.json"), JSON.stringify(settings));
  });

  test("a bad value in the file stops the command naming the variable and the file", () => {
    const settings = JSON.parse(require("node:fs").readFileSync(join(home, "settings.json"), "utf8"));
    writeFileSync(join(home, "settings.json"), JSON.stringify({ ...settings, PORT: "eighty" }));
    try {
      const bad = cli({}, "workspace", "list");
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain("PORT must be an integer");
      expect(bad.stderr).toContain(`PORT was read from ${join(home, "settings.json")}`);
      writeFileSync(join(home, "settings.json"), "{ not json");
      expect(cli({}, "workspace", "list").stderr).toContain("settings.json is not valid JSON");
    } finally {
      writeFileSync(join(home, "settings.json"), JSON.stringify(settings));
    }
  });

  test("without the file, a link made on the defaults' guess says so on stderr", () => {
    const elsewhere = mkdtempSync(join(tmpdir(), "onboarding-admin-nosettings-"));
    try {
      const env = { DATA_DIR: elsewhere, DATABASE_URL: `file:${join(home, "installed.sqlite")}` };
      const reset = cli(env, "user", "reset-password", "--workspace", "home", "--email", "ada@home.example", "--json");
      expect(reset.code).toBe(0);
      expect(new URL(reset.json().invite_url).origin).toBe("http://127.0.0.1:3000");
      expect(reset.stderr).toContain("the link starts with the default address");
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});

const server = testPostgresUrl();

describe.skipIf(!server)("npm run admin with DATABASE_URL=postgres://…", () => {
  let target: Awaited<ReturnType<typeof freshPostgresDatabase>>;
  let pgEnv: Record<string, string | undefined>;
  const pgAdmin = (...args: string[]) => {
    const result = Bun.spawnSync([process.execPath, "admin/cli.ts", ...args], { env: pgEnv, stdout: "pipe", stderr: "pipe" });
    const lines = result.stdout.toString().trim().split("\n");
    return { code: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString(), json: () => JSON.parse(lines[lines.length - 1]!) };
  };
  const rows = async <T>(query: string): Promise<T[]> => {
    const client = new SQL({ url: target.url, max: 1 });
    try {
      return (await client.unsafe(query)) as T[];
    } finally {
      await client.close();
    }
  };
  const pgDir = mkdtempSync(join(tmpdir(), "onboarding-admin-pg-"));
  beforeAll(async () => {
    target = await freshPostgresDatabase(server!);
    pgEnv = { ...process.env, DATABASE_URL: target.url, DATA_DIR: pgDir, SECRET_KEY: "k".repeat(40) };
  });
  afterAll(async () => {
    await target?.drop();
    rmSync(pgDir, { recursive: true, force: true });
  });

  test("workspaces, keys, users and settings are written to PostgreSQL, and the process exits", async () => {
    const created = pgAdmin("workspace", "create", "--slug", "acme", "--name", "Acme Inc", "--json");
    expect({ code: created.code, stderr: created.stderr }).toEqual({ code: 0, stderr: "" });
    expect(created.json()).toMatchObject({ object: "workspace", slug: "acme", name: "Acme Inc" });
    expect(pgAdmin("workspace", "create", "--slug", "acme", "--name", "Again").stderr).toContain("already exists");
    expect(pgAdmin("workspace", "list", "--json").json().data.map((o: { slug: string }) => o.slug)).toEqual(["acme"]);
    expect(await rows("SELECT slug, name FROM organizations")).toEqual([{ slug: "acme", name: "Acme Inc" }]);

    const key = pgAdmin("key", "create", "--workspace", "acme", "--name", "crm", "--tier", "paid", "--json").json();
    expect(key.key).toMatch(/^svc_[0-9A-Za-z]{40}$/);
    const listed = pgAdmin("key", "list", "--workspace", "acme", "--json");
    expect(listed.stdout).not.toContain(key.key);
    expect(listed.json().data).toEqual([expect.objectContaining({ id: key.id, rate_limit_tier: "paid", revoked_at: null, request_count: 0 })]);
    expect(pgAdmin("key", "revoke", "--id", key.id, "--json").json().revoked_at).not.toBeNull();
    expect(await rows("SELECT revoked_at IS NOT NULL AS revoked FROM api_keys")).toEqual([{ revoked: true }]);

    const ada = pgAdmin("user", "add", "--workspace", "acme", "--name", "Ada", "--email", "ada@acme.example", "--role", "admin", "--json").json();
    expect(ada).toMatchObject({ object: "user", role: "admin" });
    expect(ada.invite_url).toMatch(/\/admin\/invite\/[A-Za-z0-9_-]{43}$/);
    const reset = pgAdmin("user", "reset-password", "--workspace", "acme", "--email", "ada@acme.example", "--json").json();
    expect(reset.invite_url).not.toBe(ada.invite_url);
    expect(await rows("SELECT count(*)::int AS n FROM invites")).toEqual([{ n: 1 }]);
    expect(pgAdmin("user", "list", "--workspace", "acme", "--json").json().data.map((u: { email: string }) => u.email)).toEqual(["ada@acme.example"]);

    const updated = pgAdmin("workspace", "update", "--slug", "acme", "--slack-token", "xoxb-secret", "--launch-recap", "on", "--json");
    expect(updated.json()).toMatchObject({ launch_recap_enabled: true, slack_token_set: true });
    const [org] = await rows<{ t: string; r: boolean }>("SELECT slack_token_encrypted AS t, launch_recap_enabled AS r FROM organizations");
    expect(org!.t).toStartWith("v1:");
    expect(org!.r).toBe(true);

    // Each change is in the workspace's audit log, as the operator's, on PostgreSQL too.
    expect(await rows("SELECT actor, action FROM audit_log ORDER BY id")).toEqual(
      ["workspace.create", "api_key.create", "api_key.revoke", "user.add", "user.invite", "user.invite", "settings.update"].map((action) => ({ actor: "operator (CLI)", action })),
    );

    expect(pgAdmin("effects", "list", "--workspace", "acme", "--json").json()).toEqual({ object: "list", data: [] });
    expect(pgAdmin("timeline", "list", "--workspace", "acme", "--customer", "1").stderr).toContain("No customer '1'");
    expect(pgAdmin("key", "list", "--workspace", "nope").code).toBe(1);
  }, 60_000);

  test("db copy refuses a PostgreSQL source with the reason", () => {
    const copy = pgAdmin("db", "copy", "--to", target.url);
    expect(copy.code).toBe(1);
    expect(copy.stderr).toContain("db copy reads a SQLite database");
  });
});
