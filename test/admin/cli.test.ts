import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const dir = mkdtempSync(join(tmpdir(), "onboarding-admin-"));
const env = { ...process.env, DATABASE_URL: `file:${join(dir, "admin.sqlite")}` };
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function admin(...args: string[]) {
  const result = Bun.spawnSync([process.execPath, "admin/cli.ts", ...args], { env, stdout: "pipe", stderr: "pipe" });
  const stdout = result.stdout.toString();
  const lines = stdout.trim().split("\n");
  return { code: result.exitCode, stdout, stderr: result.stderr.toString(), json: () => JSON.parse(lines[lines.length - 1]!) };
}

describe("npm run admin", () => {
  test("org create and list, with --json", () => {
    const created = admin("org", "create", "--slug", "acme", "--name", "Acme Inc", "--json");
    expect(created.code).toBe(0);
    expect(created.json()).toMatchObject({ object: "organization", slug: "acme", name: "Acme Inc" });
    expect(created.json().id).toMatch(/^org_/);
    expect(admin("org", "list", "--json").json().data.map((o: { slug: string }) => o.slug)).toEqual(["acme"]);
  });

  test("a taken slug fails with the reason on stderr", () => {
    const again = admin("org", "create", "--slug", "acme", "--name", "Again", "--json");
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain("already exists");
  });

  test("key create shows the secret once; key list never shows it; revoke", () => {
    const created = admin("key", "create", "--org", "acme", "--name", "crm", "--tier", "paid", "--json").json();
    expect(created).toMatchObject({ object: "api_key", name: "crm", mode: "live", rate_limit_tier: "paid" });
    expect(created.key).toMatch(/^svc_[0-9A-Za-z]{40}$/);
    expect(created.prefix).toBe(created.key.slice(0, 12));
    const test = admin("key", "create", "--org", "acme", "--name", "ci", "--test", "--json").json();
    expect(test.key).toMatch(/^svc_test_/);
    expect(test.mode).toBe("test");

    const list = admin("key", "list", "--org", "acme", "--json");
    expect(list.stdout).not.toContain(created.key);
    const listed = list.json().data.find((k: { id: string }) => k.id === created.id);
    expect(listed).toMatchObject({ name: "crm", prefix: created.prefix, revoked_at: null, last_used_at: null, request_count: 0 });
    expect(listed).not.toHaveProperty("key");
    expect(listed).not.toHaveProperty("key_hash");

    const revoked = admin("key", "revoke", "--id", created.id, "--json").json();
    expect(revoked.revoked_at).not.toBeNull();
  });

  test("unknown workspaces, keys and commands fail non-zero", () => {
    expect(admin("key", "list", "--org", "nope", "--json").code).not.toBe(0);
    expect(admin("key", "revoke", "--id", "key_nope").code).not.toBe(0);
    expect(admin("frobnicate").code).not.toBe(0);
    expect(admin("key", "create", "--org", "acme").stderr).toContain("--name is required");
  });
});
