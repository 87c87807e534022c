import { afterAll, describe, expect, test } from "bun:test";
import { spawn } from "bun";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../../scripts/private-redis.ts";
import { exitWithin, readUntil } from "../support/processes.ts";
import { testRedisUrl, uniquePrefix } from "../support/test-app.ts";

const dir = mkdtempSync(join(tmpdir(), "onboarding-start-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("npm start on a first run", () => {
  test("names the Redis and queue prefix it found, then the two commands to run next and where the admin token is", async () => {
    const port = await freePort();
    const prefix = uniquePrefix("start");
    const { ADMIN_TOKEN: _a, SECRET_KEY: _s, PUBLIC_URL: _p, ...env } = process.env;
    const child = spawn([process.execPath, "scripts/start.ts"], {
      env: { ...env, PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dir, DATABASE_URL: `file:${join(dir, "db.sqlite")}`, REDIS_URL: testRedisUrl(), QUEUE_PREFIX: prefix, LOG_LEVEL: "warn" },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "inherit",
    });
    try {
      const out = await readUntil(child.stdout, /key create --workspace acme[^\n]*\n[^\n]*admin token[^\n]*\n/, 20_000);
      expect(out).toContain(`[secrets] generated ADMIN_TOKEN (shown once; kept in ${join(dir, "secrets.json")})`);
      expect(out).toContain(`[start] using the Redis already running at ${testRedisUrl()}, queue prefix '${prefix}'`);
      expect(out).toContain(`[start] API at http://127.0.0.1:${port}/api/v1; reference at http://127.0.0.1:${port}/api/v1/docs`);
      expect(out).toContain('npm run -s admin -- workspace create --slug acme --name "Acme Inc"');
      expect(out).toContain("npm run -s admin -- key create --workspace acme --name crm-sync");
      expect(out).toContain(`ADMIN_TOKEN in ${join(dir, "secrets.json")}`);
    } finally {
      child.kill("SIGTERM");
      expect(await exitWithin(child, 15_000)).toBe(0);
    }
  });
});
