import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { run } from "../../shared/db/flow.ts";
import { createApiKey } from "../../shared/workspaces.ts";
import { systemClock } from "../../shared/clock.ts";
import { createTestApp, expectError, type TestApp } from "../support/test-app.ts";

/**
 * The API keeps keys it has seen in memory (api/auth/authenticate.ts). These prove that the
 * cache never outlives a change: every request reads the revision that triggers bump, so a
 * revocation by any writer (this process, the command line in another process, plain SQL)
 * holds from the next request.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const newKey = async (name: string) => run(createApiKey(t.database, systemClock, { workspaceSlug: "acme", name, mode: "live", tier: "paid" }));
const me = (key: string) => t.call("GET", "/api/v1/me", { key });

describe("the key cache", () => {
  test("a key revoked by the command line, in another process, is refused on its next request", async () => {
    const { key, row } = await newKey("cli-revoked");
    expect((await me(key)).status).toBe(200);
    expect((await me(key)).status).toBe(200); // served from the cache now
    const cli = Bun.spawnSync([process.execPath, "admin/cli.ts", "key", "revoke", "--id", row.id], {
      env: { ...process.env, DATABASE_URL: t.databaseUrl, SECRET_KEY: "k".repeat(40), LOG_LEVEL: "silent" },
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(cli.stderr.toString()).toBe("");
    expect(cli.exitCode).toBe(0);
    expectError(await me(key), 401, "api_key_revoked");
  });

  test("a change made with plain SQL is seen too: the trigger bumps the revision, not the code", async () => {
    const { key, row } = await newKey("sql-changed");
    expect((await me(key)).body.api_key.name).toBe("sql-changed");
    await t.query("UPDATE api_keys SET name = ? WHERE id = ?", "renamed", row.id);
    expect((await me(key)).body.api_key.name).toBe("renamed");
    await t.query("UPDATE api_keys SET revoked_at = ? WHERE id = ?", systemClock.nowMicros(), row.id);
    expectError(await me(key), 401, "api_key_revoked");
  });

  test("a deleted key is unknown from the next request", async () => {
    const { key, row } = await newKey("deleted");
    expect((await me(key)).status).toBe(200);
    await t.query("DELETE FROM api_keys WHERE id = ?", row.id);
    expectError(await me(key), 401, "invalid_api_key");
  });

  test("usage bookkeeping does not empty the cache: the revision moves only with a key's identity", async () => {
    const [before] = await t.query<{ revision: number }>("SELECT revision FROM auth_revision");
    await me(t.keys.live);
    await t.query("UPDATE api_keys SET request_count = request_count + 1, last_used_at = ? WHERE id = ?", systemClock.nowMicros(), t.keyIds.live);
    const [after] = await t.query<{ revision: number }>("SELECT revision FROM auth_revision");
    expect(Number(after!.revision)).toBe(Number(before!.revision));
  });

  test("a revoked key's read answers the revocation, never the read's own answer", async () => {
    const { key, row } = await newKey("revoked-read");
    const missing = "/api/v1/onboardings/onb_00000000000000000000000000";
    expectError(await t.call("GET", missing, { key }), 404, "onboarding_not_found");
    expectError(await t.call("GET", missing, { key }), 404, "onboarding_not_found"); // the key is cached now
    await t.query("UPDATE api_keys SET revoked_at = ? WHERE id = ?", systemClock.nowMicros(), row.id);
    // The read's own answer (404) never reaches the client: the revocation does.
    expectError(await t.call("GET", missing, { key }), 401, "api_key_revoked");
    expectError(await t.call("GET", "/api/v1/onboardings?limit=1", { key }), 401, "api_key_revoked");
  });

  test("many concurrent first requests of one key all succeed, and a revocation between bursts holds", async () => {
    const { key, row } = await newKey("burst");
    const first = await Promise.all(Array.from({ length: 20 }, () => me(key)));
    expect(first.map((r) => r.status)).toEqual(Array(20).fill(200));
    await t.query("UPDATE api_keys SET revoked_at = ? WHERE id = ?", systemClock.nowMicros(), row.id);
    const second = await Promise.all(Array.from({ length: 20 }, () => me(key)));
    for (const r of second) expectError(r, 401, "api_key_revoked");
  });
});
