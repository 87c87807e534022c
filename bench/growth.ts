/**
 * `bun bench/growth.ts [--count=N] [--db postgres]`: what a call leaves behind in the database.
 * The real app in this process (bench/lib/in-process.ts) over a fresh SQLite file, or a fresh
 * PostgreSQL database with `--db postgres`:
 * 1. N reads served (paid keys, none refused);
 * 2. N reads of one default-tier key past its limit (all but 60 refused);
 * 3. N/10 creates of an onboarding with an `Idempotency-Key` (the change, its activity entry,
 *    its outbox rows and the stored response: what a create keeps until the 24 h windows pass).
 * Each phase ends with the activity flush (and a WAL checkpoint on SQLite), and the database's
 * bytes are compared before and after: SQLite's page count × page size, PostgreSQL's
 * `pg_database_size`. Then it times each 500-row slice of pruning those entries (on SQLite,
 * how long each holds the write lock).
 */
import { createApiKey } from "../shared/workspaces.ts";
import { systemClock } from "../shared/clock.ts";
import { run } from "../shared/db/flow.ts";
import { createRetentionStore } from "../shared/db/retention.store.ts";
import { startInProcessApp } from "./lib/in-process.ts";

const count = Number(process.argv.find((a) => a.startsWith("--count="))?.slice(8) ?? 20_000);
const dbAt = process.argv.indexOf("--db");
const engine = (dbAt >= 0 ? process.argv[dbAt + 1] : process.argv.find((a) => a.startsWith("--db="))?.slice(5)) ?? "sqlite";
if (engine !== "sqlite" && engine !== "postgres") throw new Error(`--db must be sqlite or postgres (got '${engine}')`);
const creates = Math.max(1, Math.round(count / 10));

const app = await startInProcessApp({ keys: 400, onboardings: 200, engine });
const { built, database, keys, onboardingIds } = app;

/** The database's bytes once everything is written (and, on SQLite, checkpointed into the file). */
async function bytes(): Promise<number> {
  await built.activity.drain();
  if (database.engine === "sqlite") database.db.$client.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  return run(database.sql.databaseBytes());
}

async function calls(n: number, request: (i: number) => Request): Promise<Record<number, number>> {
  const statuses: Record<number, number> = {};
  for (let i = 0; i < n; i++) {
    const response = await built.app.handle(request(i));
    await response.arrayBuffer();
    statuses[response.status] = (statuses[response.status] ?? 0) + 1;
  }
  return statuses;
}

const read = (key: string, i: number) =>
  new Request(`http://127.0.0.1:3000/api/v1/onboardings/${onboardingIds[i % onboardingIds.length]}`, { headers: { authorization: `Bearer ${key}` } });

try {
  const start = await bytes();
  const served = await calls(count, (i) => read(keys[i % keys.length]!.key, i));
  const afterServed = await bytes();
  const { key } = await run(createApiKey(database, systemClock, { workspaceSlug: "bench-0", name: "hammer", mode: "live", tier: "default" }));
  const refusedStatuses = await calls(count, (i) => read(key, i));
  const afterRefused = await bytes();
  const created = await calls(creates, (i) => {
    const k = keys[i % keys.length]!;
    return new Request("http://127.0.0.1:3000/api/v1/onboardings", {
      method: "POST",
      headers: { authorization: `Bearer ${k.key}`, "content-type": "application/json", "idempotency-key": `growth-${i}` },
      body: JSON.stringify({ customer_id: k.customerId }),
    });
  });
  const afterCreates = await bytes();
  const refused = refusedStatuses[429] ?? 0;
  const rows = await run(
    database.sql.statement("SELECT status, CAST(count(*) AS INTEGER) AS n, CAST(sum(repeat_count) AS INTEGER) AS calls FROM activity_entries GROUP BY status ORDER BY status").all(),
  );
  const pages = await run(database.sql.statement("SELECT CAST(count(*) AS INTEGER) AS pages, CAST(sum(entry_count) AS INTEGER) AS entries FROM activity_pages").get());
  console.log(`engine: ${engine}`);
  console.log(`served:  ${JSON.stringify(served)}  ${((afterServed - start) / count).toFixed(0)} bytes per call`);
  console.log(`refused: ${JSON.stringify(refusedStatuses)}  ${((afterRefused - afterServed) / count).toFixed(1)} bytes per call (of which ${refused} refused)`);
  console.log(`created: ${JSON.stringify(created)}  ${((afterCreates - afterRefused) / creates).toFixed(0)} bytes per create (change, activity, outbox rows, stored response)`);
  console.log(`activity rows (changes'): ${JSON.stringify(rows)}`);
  console.log(`activity pages (the other calls'): ${JSON.stringify(pages)}`);
  // Pruning all of it, as the worker would once ACTIVITY_RETENTION passed: time per slice of 500.
  const store = createRetentionStore(database.sql);
  const held = database.engine === "sqlite" ? "SQLite's write lock held for each" : "row locks on those 500 rows only";
  for (const table of ["activity_entries", "activity_pages"] as const) {
    const slices: number[] = [];
    const [pruneSlice] = await run(store.slices(table));
    for (;;) {
      const started = performance.now();
      const deleted = await run(pruneSlice!(Number.MAX_SAFE_INTEGER, 500));
      slices.push(performance.now() - started);
      if (deleted < 500) break;
    }
    slices.sort((a, b) => a - b);
    console.log(`pruning ${table}: ${slices.length} slices of 500 rows, median ${slices[slices.length >> 1]!.toFixed(2)} ms, longest ${slices[slices.length - 1]!.toFixed(2)} ms (${held})`);
  }
} finally {
  await app.close();
}
