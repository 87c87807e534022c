import { afterAll, describe, expect, test } from "bun:test";
import { spawn } from "bun";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { listDeliveries } from "../../admin/reports.ts";
import { freePort } from "../../scripts/private-redis.ts";
import { openDatabase } from "../../shared/db/client.ts";
import { sqliteDatabase } from "../../shared/db/database.ts";
import { run } from "../../shared/db/flow.ts";
import { exitWithin, startProcess } from "../support/processes.ts";
import { testRedisUrl, uniquePrefix } from "../support/test-app.ts";

/**
 * The README's walk-through and the guide's examples, run as written: their `sh` blocks go to
 * one bash session against the real API and worker processes, and each block's output must
 * equal the `json`/`text` block printed right after it (ids, service-set timestamps and key
 * material aside). A `sh` block with no output block after it must print nothing.
 */

interface Step {
  script: string;
  expected: string | null;
}

/**
 * The `sh` blocks of one section, each with the `json`/`text` block that directly follows it
 * (only blank lines between) as its expected output. Other blocks illustrate and are skipped.
 */
function sectionSteps(file: string, heading: string): Step[] {
  const text = readFileSync(file, "utf8");
  const start = text.indexOf(`${heading}\n`);
  if (start < 0) throw new Error(`${file} has no section '${heading}'`);
  const end = text.indexOf("\n## ", start + heading.length);
  const section = text.slice(start, end < 0 ? undefined : end);
  const blocks = [...section.matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1]!, body: m[2]!, from: m.index!, to: m.index! + m[0].length }));
  const steps: Step[] = [];
  blocks.forEach((block, i) => {
    if (block.lang !== "sh") return;
    const next = blocks[i + 1];
    const follows = next && next.lang !== "sh" && section.slice(block.to, next.from).trim() === "";
    steps.push({ script: block.body, expected: follows ? next.body : null });
  });
  return steps;
}

/** The README's walk-through, then the guide's examples that build on it. */
const walkthroughSteps = (): Step[] => [
  ...sectionSteps("README.md", "## A walk through with curl"),
  ...sectionSteps("docs/api.md", "## Pagination"),
  ...sectionSteps("docs/api.md", "## Idempotency and retries"),
];

/** What changes from run to run: ids, timestamps the service sets, API keys. */
const normalise = (text: string) =>
  text
    .replace(/\b(cus|con|onb|org|key|usr|req|dlv)_[0-9A-HJKMNP-TV-Z]{26}\b/g, "$1_<id>")
    .replace(/\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z\b/g, "<time>")
    .replace(/\bsvc_(test_)?[0-9A-Za-z]{8,}/g, "svc_$1<key>")
    .split("\n")
    .map((line) => line.trimEnd())
    .filter((line) => line !== "")
    .sort() // effects come from concurrent jobs: their order is not part of the story
    .join("\n");

const dir = mkdtempSync(join(tmpdir(), "onboarding-readme-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the README walk-through and the guide's examples", () => {
  test("every block prints what the README says it prints", async () => {
    const steps = walkthroughSteps();
    expect(steps.length).toBeGreaterThan(5);
    const port = await freePort();
    const databaseUrl = `file:${join(dir, "onboarding.sqlite")}`;
    const env = {
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      DATA_DIR: dir,
      REDIS_URL: testRedisUrl(),
      QUEUE_PREFIX: uniquePrefix("readme"),
      ADMIN_TOKEN: "admin-token-0123456789abcdef",
      SECRET_KEY: "s".repeat(40),
    };
    const api = startProcess("api/main.ts", env);
    const worker = startProcess("worker/main.ts", env);
    try {
      const deadline = Date.now() + 15_000;
      let up = false;
      while (!up && Date.now() < deadline) {
        up = await fetch(`http://127.0.0.1:${port}/api/v1/health`).then((r) => r.ok, () => false);
        if (!up) await Bun.sleep(50);
      }
      expect(up ? "up" : "the API did not answer within 15 s").toBe("up");

      // One bash session, so variables carry from block to block; a marker ends each block.
      const marker = (i: number) => `@@@ end of block ${i} @@@`;
      const script = ["set -euo pipefail"];
      for (const [i, step] of steps.entries()) {
        if (step.script.includes("effects list")) script.push("wait_for_effects");
        script.push(step.script.replaceAll("127.0.0.1:3000", `127.0.0.1:${port}`), `printf '\\n%s\\n' '${marker(i)}'`);
      }
      // The worker runs the launch effects after the PATCH: wait for them with a deadline
      // (a reader of the README takes longer than that between two commands).
      const waitForEffects = join(dir, "wait-for-effects.ts");
      await Bun.write(
        waitForEffects,
        `import { listDeliveries } from ${JSON.stringify(join(process.cwd(), "admin/reports.ts"))};
import { openDatabase } from ${JSON.stringify(join(process.cwd(), "shared/db/client.ts"))};
import { sqliteDatabase } from ${JSON.stringify(join(process.cwd(), "shared/db/database.ts"))};
import { run } from ${JSON.stringify(join(process.cwd(), "shared/db/flow.ts"))};
const database = sqliteDatabase(openDatabase(${JSON.stringify(join(dir, "onboarding.sqlite"))}));
const deadline = Date.now() + 15000;
while (Date.now() < deadline) {
  const done = (await run(listDeliveries(database, "acme"))).filter((d) => d.status !== "pending");
  if (done.length >= 2) process.exit(0);
  await Bun.sleep(50);
}
console.error("launch effects not done within 15 s");
process.exit(1);
`,
      );
      const prelude = `wait_for_effects() { "${process.execPath}" "${waitForEffects}"; }\n`;
      const bash = spawn(["bash", "-c", prelude + script.join("\n")], {
        env: { ...process.env, DATABASE_URL: databaseUrl, DATA_DIR: dir, ADMIN_TOKEN: env.ADMIN_TOKEN, SECRET_KEY: env.SECRET_KEY },
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe",
      });
      const [stdout, stderr, code] = await Promise.all([new Response(bash.stdout).text(), new Response(bash.stderr).text(), exitWithin(bash, 60_000)]);
      expect(`exit ${code}${code === 0 ? "" : `\n${stderr}`}`).toBe("exit 0");

      let rest = stdout;
      for (const [i, step] of steps.entries()) {
        const at = rest.indexOf(`\n${marker(i)}\n`);
        expect(at >= 0 ? "ended" : `block ${i} did not end:\n${step.script}`).toBe("ended");
        const actual = rest.slice(0, at);
        rest = rest.slice(at + marker(i).length + 2);
        const label = `README block ${i + 1}:\n${step.script}`;
        expect(`${label}\n${normalise(actual)}`).toBe(`${label}\n${normalise(step.expected ?? "")}`);
      }

      // And the story the README tells holds: the DM failed for the reason it gives.
      const database = sqliteDatabase(openDatabase(join(dir, "onboarding.sqlite")));
      const effects = await run(listDeliveries(database, "acme"));
      database.close();
      expect(effects.map((e) => `${(e as Record<string, unknown>).kind} ${(e as Record<string, unknown>).status}`).sort()).toEqual(["launch.calendar_entry sent", "launch.slack_dm failed"]);
    } finally {
      api.kill("SIGTERM");
      worker.kill("SIGTERM");
      await exitWithin(api, 15_000);
      await exitWithin(worker, 15_000);
    }
  });
});
