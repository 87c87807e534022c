import { afterAll, describe, expect, test } from "bun:test";
import { spawn } from "bun";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../../scripts/private-redis.ts";
import { RUNTIME_ENV } from "../../shared/runtime-env.ts";
import { alive, descendantsOf, exitWithin, readUntil } from "../support/processes.ts";
import { testRedisUrl, uniquePrefix } from "../support/test-app.ts";

const dir = mkdtempSync(join(tmpdir(), "onboarding-start-"));
/** A process's /proc text (its command line or environment), NUL-separated; empty once it is gone. */
const procText = (pid: number, file: "cmdline" | "environ") => {
  try {
    return readFileSync(`/proc/${pid}/${file}`, "utf8");
  } catch {
    return "";
  }
};
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// A terminal with none of the installation's variables (the test's own DATA_DIR included).
const { ADMIN_TOKEN: _a, SECRET_KEY: _s, PUBLIC_URL: _p, PORT: _port, HOST: _h, DATABASE_URL: _d, REDIS_URL: _r, QUEUE_PREFIX: _q, DATA_DIR: _dd, ...bare } = process.env;

function npmStart(env: Record<string, string>) {
  return spawn([process.execPath, "scripts/start.ts"], { env: { ...bare, LOG_LEVEL: "warn", ...env }, stdin: "ignore", stdout: "pipe", stderr: "inherit" });
}

describe("npm start", () => {
  const port = freePort();
  const prefix = uniquePrefix("start");

  test("on a first run names the Redis and queue prefix it found, then the two commands to run next and where the admin token is", async () => {
    const child = npmStart({ PORT: String(await port), HOST: "127.0.0.1", DATA_DIR: dir, DATABASE_URL: `file:${join(dir, "db.sqlite")}`, REDIS_URL: testRedisUrl(), QUEUE_PREFIX: prefix });
    try {
      const out = await readUntil(child.stdout, /key create --workspace acme[^\n]*\n[^\n]*admin token[^\n]*\n/, 20_000);
      expect(out).toContain(`[secrets] generated ADMIN_TOKEN (shown once; kept in ${join(dir, "secrets.json")})`);
      expect(out).toContain(`[start] using the Redis already running at ${testRedisUrl()}, queue prefix '${prefix}'`);
      expect(out).toContain(`[start] API at http://127.0.0.1:${await port}/api/v1; reference at http://127.0.0.1:${await port}/api/v1/docs`);
      // DATA_DIR is not the default, so the commands to run next carry it.
      expect(out).toContain(`DATA_DIR=${dir} npm run -s admin -- workspace create --slug acme --name "Acme Inc"`);
      expect(out).toContain(`DATA_DIR=${dir} npm run -s admin -- key create --workspace acme --name crm-sync`);
      expect(out).toContain(`ADMIN_TOKEN in ${join(dir, "secrets.json")}`);
      expect(out).toContain(`these settings are kept in ${join(dir, "settings.json")}`);
    } finally {
      child.kill("SIGTERM");
      expect(await exitWithin(child, 15_000)).toBe(0);
    }
    // What it ran with is written down for the other terminals, without a secret.
    const settings = JSON.parse(readFileSync(join(dir, "settings.json"), "utf8"));
    expect(settings).toEqual({ PORT: String(await port), HOST: "127.0.0.1", DATABASE_URL: `file:${join(dir, "db.sqlite")}`, REDIS_URL: testRedisUrl(), QUEUE_PREFIX: prefix });
  });

  test("the next run, and the operator command line in another terminal, need only DATA_DIR", async () => {
    const child = npmStart({ DATA_DIR: dir });
    try {
      const out = await readUntil(child.stdout, /key create --workspace acme[^\n]*\n[^\n]*admin token[^\n]*\n/, 20_000);
      expect(out).toContain(`[start] API at http://127.0.0.1:${await port}/api/v1`);
      expect(out).toContain(`queue prefix '${prefix}'`);
      expect(out).not.toContain("[secrets] generated"); // the same installation: its secrets are kept

      const cli = (...args: string[]) => {
        const result = Bun.spawnSync([process.execPath, "admin/cli.ts", ...args, "--json"], { env: { ...bare, DATA_DIR: dir }, stdout: "pipe", stderr: "pipe" });
        expect(result.stderr.toString()).toBe("");
        return JSON.parse(result.stdout.toString().trim().split("\n").pop()!);
      };
      cli("workspace", "create", "--slug", "acme", "--name", "Acme Inc");
      const ada = cli("user", "add", "--workspace", "acme", "--name", "Ada", "--email", "ada@acme.example", "--role", "admin");
      // The link points at the running service (its port came from settings.json), which knows it.
      expect(ada.invite_url).toStartWith(`http://127.0.0.1:${await port}/admin/invite/`);
      const page = await fetch(ada.invite_url);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain("ada@acme.example");
    } finally {
      child.kill("SIGTERM");
      expect(await exitWithin(child, 15_000)).toBe(0);
    }
  });
  // A supervisor (systemd, `docker stop` on `npm run start:api`) signals npm, not the processes
  // it runs. npm passes SIGTERM to the shell that runs the script; a shell that waits for its
  // command dies of it without passing it on, and the API and the worker went on, orphaned.
  test.skipIf(process.platform !== "linux" || !Bun.which("npm"))("run by npm, SIGTERM to npm stops the API and the worker cleanly", async () => {
    const own = mkdtempSync(join(tmpdir(), "onboarding-npm-start-"));
    const ownPort = await freePort();
    const npm = spawn(["npm", "start"], {
      env: { ...bare, LOG_LEVEL: "info", PORT: String(ownPort), HOST: "127.0.0.1", DATA_DIR: own, DATABASE_URL: `file:${join(own, "db.sqlite")}`, REDIS_URL: testRedisUrl(), QUEUE_PREFIX: uniquePrefix("npmstart") },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    let below: number[] = [];
    try {
      const seen = { text: "" };
      await readUntil(npm.stdout, /\[start\] API at /, 30_000, seen);
      below = descendantsOf(npm.pid);
      expect(below.length).toBeGreaterThanOrEqual(3); // the start script, the API, the worker (and npm's shell, if it stayed)
      // The API and the worker run with Bun's runtime settings (shared/runtime-env.ts).
      const started = below.map((pid) => ({ command: procText(pid, "cmdline"), env: procText(pid, "environ").split("\0") })).filter((p) => /(api|worker)\/main\.ts/.test(p.command));
      expect(started.map((p) => p.command.match(/(api|worker)\/main\.ts/)![0]).sort()).toEqual(["api/main.ts", "worker/main.ts"]);
      for (const { env } of started) for (const [key, value] of Object.entries(RUNTIME_ENV)) expect(env).toContain(`${key}=${value}`);
      npm.kill("SIGTERM");
      await exitWithin(npm, 15_000);
      const deadline = Date.now() + 15_000;
      while (below.some(alive) && Date.now() < deadline) await Bun.sleep(100);
      expect(below.filter(alive)).toEqual([]);
      // A drain, not a kill: the API said it was stopping (the output has ended by now).
      await readUntil(npm.stdout, /api stopping/, 1_000, seen);
      expect(seen.text).toContain("api stopping");
    } finally {
      for (const pid of below.filter(alive)) process.kill(pid, "SIGKILL");
      rmSync(own, { recursive: true, force: true });
    }
  }, 60_000);
});
