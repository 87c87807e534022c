/**
 * `npm test`: the whole suite on SQLite, then the engine-neutral suites again on PostgreSQL
 * (`TEST_ENGINE=postgres`) when one answers: `TEST_POSTGRES_URL`, or 127.0.0.1:5432 as
 * `postgres`. CI requires the second pass (`REQUIRE_POSTGRES=1`); a machine without
 * PostgreSQL runs SQLite only and says so. Arguments are passed to both `bun test` runs.
 *
 * Ends with one summary of both passes, in bun's own format (` N skip`, then ` N pass` and
 * ` N fail` as the last two lines, which `.ci/run` reads either way; errors between tests are
 * counted as failures there).
 */
import { postgresAnswers } from "../test/support/postgres.ts";

const LOCAL_POSTGRES = "postgres://postgres@127.0.0.1:5432/postgres";
/** Suites that go through the data-access layer only, so they mean the same on both engines. */
const ENGINE_NEUTRAL = [
  "test/http",
  "test/worker",
  "test/admin-area",
  "test/admin/cli.test.ts",
  "test/db/transactions.test.ts",
  "test/db/read-together.test.ts",
  "test/db/retention.test.ts",
  "test/db/activity-store.test.ts",
  "test/db/phase-durations-store.test.ts",
  "test/ops/api-process.test.ts",
  "test/ops/rolling-upgrade.test.ts",
  "test/faults/redis-data-loss.test.ts",
  "test/faults/api-kill.test.ts",
  "test/faults/concurrent-changes.test.ts",
  "test/faults/feed-under-concurrency.test.ts",
  "test/faults/webhook-faults.test.ts",
  "test/e2e/admin-webhooks.browser.test.ts",
  "test/e2e/admin-onboardings.browser.test.ts",
  "test/scale/several-workers.test.ts",
  "test/client",
];

const args = process.argv.slice(2);
const totals = { skip: 0, pass: 0, fail: 0, error: 0 };

async function bunTest(label: string, paths: string[], env: Record<string, string>): Promise<number> {
  console.log(`\n[test] ${label}`);
  const child = Bun.spawn([process.execPath, "test", "--timeout", "30000", ...args, ...paths], {
    env: { ...process.env, ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const relay = async (stream: ReadableStream<Uint8Array>, out: NodeJS.WriteStream) => {
    const decoder = new TextDecoder();
    let pending = "";
    for await (const chunk of stream) {
      const text = decoder.decode(chunk, { stream: true });
      out.write(text);
      pending += text;
      const lines = pending.split("\n");
      pending = lines.pop()!;
      for (const line of lines) {
        const count = /^ *(\d+) (skip|pass|fail|error)$/.exec(line);
        if (count) totals[count[2] as keyof typeof totals] += Number(count[1]);
      }
    }
  };
  await Promise.all([relay(child.stdout, process.stdout), relay(child.stderr, process.stderr)]);
  const code = await child.exited;
  // bun exits non-zero without a failed test on an error between tests (counted below), or when
  // it dies on its way out (a crash, a signal): say so here, where the last lines of the log are
  // read, instead of leaving a bare status.
  if (code !== 0) console.error(`[test] ${label}: bun test exited with ${child.signalCode ?? `code ${code}`}`);
  return code;
}

let status = await bunTest("SQLite: every suite", [], { TEST_ENGINE: "sqlite" });

const postgresUrl = process.env.TEST_POSTGRES_URL || ((await postgresAnswers(LOCAL_POSTGRES)) ? LOCAL_POSTGRES : undefined);
if (postgresUrl) {
  const onlySome = args.some((a) => !a.startsWith("-"));
  if (!onlySome) {
    const second = await bunTest("PostgreSQL: the engine-neutral suites", ENGINE_NEUTRAL, { TEST_ENGINE: "postgres", TEST_POSTGRES_URL: postgresUrl });
    status = status || second;
  }
} else if (process.env.REQUIRE_POSTGRES === "1") {
  console.error("[test] REQUIRE_POSTGRES=1 but no PostgreSQL answers (set TEST_POSTGRES_URL)");
  totals.fail += 1;
  status = 1;
} else {
  console.log("\n[test] no PostgreSQL answers at 127.0.0.1:5432 (or TEST_POSTGRES_URL): the PostgreSQL pass is skipped");
}

// Skipped tests are counted too (PostgreSQL variants without PostgreSQL, a platform's own cases):
// a pass that skipped much should say so. The last two lines stay pass and fail for .ci/run.
// An error between tests (bun's "# Unhandled error between tests", counted as ` N error` under
// ` N fail`) fails its pass without failing a test: it is counted with the failures here, so
// that the line .ci/run reads says so, and named on a line of its own.
const errors = totals.error > 0 ? `\n ${totals.error} error (unhandled between tests: search the log for "Unhandled error between tests"; counted as failed below)` : "";
console.log(`\n[test] both passes together:\n ${totals.skip} skip${errors}\n ${totals.pass} pass\n ${totals.fail + totals.error} fail`);
process.exit(status || (totals.fail + totals.error > 0 ? 1 : 0));
