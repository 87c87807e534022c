/**
 * `bun bench/create-steps.ts [--count=N] [--group=N]`: where a keyed create's time goes on
 * SQLite, statement by statement, in one process (the real app over SQLite and a private Redis,
 * bench/lib/in-process.ts; ten workspaces, their keys interleaved as the HTTP bench's load
 * takes them). Creates are sent `group` at a time, so they share one group commit as they do
 * under load (16 a commit at 32 connections, the HTTP bench's measure), until `count` are done.
 *
 * Every statement bun:sqlite prepares in this process is timed by its text (the prepare is
 * wrapped before the app starts; nothing of the app is changed), and the table gives each one's
 * wall µs per create beside the whole request's. COMMIT is where the group's pages are written
 * to the WAL, so its row is the cost of the pages the creates dirty (the indexes of ten
 * workspaces), shared by the group.
 */
import { Database, type Statement } from "bun:sqlite";
import { startInProcessApp } from "./lib/in-process.ts";

const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback);
const count = arg("count", 20_000);
const group = arg("group", 16);

/** Wall ms and calls per statement text, while `timing` is on. */
const spent = new Map<string, { ms: number; calls: number }>();
let timing = false;
const prepare = Database.prototype.prepare;
Database.prototype.prepare = function (this: Database, text: string, ...rest: unknown[]) {
  const statement = (prepare as (this: Database, text: string, ...rest: unknown[]) => Statement).call(this, text, ...rest);
  const label = text.replace(/\s+/g, " ").slice(0, 72);
  for (const method of ["run", "get", "all"] as const) {
    const original = statement[method].bind(statement) as (...args: unknown[]) => unknown;
    (statement as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
      if (!timing) return original(...args);
      const started = performance.now();
      try {
        return original(...args);
      } finally {
        const entry = spent.get(label) ?? { ms: 0, calls: 0 };
        entry.ms += performance.now() - started;
        entry.calls++;
        spent.set(label, entry);
      }
    };
  }
  return statement;
} as typeof Database.prototype.prepare;

const app = await startInProcessApp({ workspaces: 10, keys: 40, onboardings: 0 });
try {
  const { built, keys } = app;
  // As the API process opens it (api/main.ts): checkpoints are the worker's, and the API's own
  // only past 10,000 pages of WAL.
  app.db.$client.exec("PRAGMA wal_autocheckpoint = 10000");
  let serial = 0;
  const create = async () => {
    const key = keys[serial % keys.length]!;
    serial++;
    const response = await built.app.handle(
      new Request("http://127.0.0.1:3000/api/v1/onboardings", {
        method: "POST",
        headers: { authorization: `Bearer ${key.key}`, "content-type": "application/json", "idempotency-key": `steps-${serial}` },
        body: JSON.stringify({ customer_id: key.customerId }),
      }),
    );
    if (response.status !== 201) throw new Error(`create answered ${response.status}: ${await response.text()}`);
    await response.arrayBuffer();
  };
  const run = async (n: number) => {
    for (let done = 0; done < n; done += group) await Promise.all(Array.from({ length: group }, create));
  };

  await run(2_000); // warm: statements prepared, tables past their first pages
  timing = true;
  const started = performance.now();
  await run(count);
  const wholeMs = performance.now() - started;
  timing = false;

  const perCreate = (ms: number) => (ms * 1000) / count;
  const rows = [...spent.entries()].sort((a, b) => b[1].ms - a[1].ms);
  const statementsMs = rows.reduce((sum, [, entry]) => sum + entry.ms, 0);
  console.log(`\n${count} keyed creates on SQLite, ${group} per group commit, ten workspaces; wall µs per create:\n`);
  console.log("| statement | calls per create | µs per create |\n|---|---|---|");
  for (const [label, entry] of rows.filter(([, entry]) => perCreate(entry.ms) >= 0.5)) {
    console.log(`| \`${label.replaceAll("|", "\\|")}\` | ${(entry.calls / count).toFixed(2)} | ${perCreate(entry.ms).toFixed(1)} |`);
  }
  console.log(`| **every statement** | | ${perCreate(statementsMs).toFixed(1)} |`);
  console.log(`| **the whole request** (app.handle, in groups) | | ${perCreate(wholeMs).toFixed(1)} |`);
} finally {
  Database.prototype.prepare = prepare;
  await app.close();
}
