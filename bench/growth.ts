/**
 * `bun bench/growth.ts [--count=N]`: what a call leaves behind in the database. The real app in
 * this process over a fresh SQLite file (bench/lib/in-process.ts); N reads served (paid keys,
 * none refused), then N reads of one default-tier key past its limit (all but 60 refused), each
 * batch followed by the flush and a WAL checkpoint, and the file's bytes (page count × page
 * size) compared before and after. Prints bytes per served call and per refused call, then how
 * long each 500-row slice of pruning all those entries holds SQLite's write lock.
 */
import { createApiKey } from "../shared/workspaces.ts";
import { systemClock } from "../shared/clock.ts";
import { fileBytes } from "../shared/db/client.ts";
import { run } from "../shared/db/flow.ts";
import { createRetentionStore } from "../shared/db/retention.store.ts";
import { startInProcessApp } from "./lib/in-process.ts";

const count = Number(process.argv.find((a) => a.startsWith("--count="))?.slice(8) ?? 20_000);
const app = await startInProcessApp({ keys: 400, onboardings: 200 });
const { built, db, keys, onboardingIds } = app;
const sqlite = db.$client;

/** The file's bytes once everything is written and checkpointed. */
async function bytes(): Promise<number> {
  await built.activity.drain();
  sqlite.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  return fileBytes(sqlite);
}

async function calls(n: number, authorization: (i: number) => string): Promise<Record<number, number>> {
  const statuses: Record<number, number> = {};
  for (let i = 0; i < n; i++) {
    const response = await built.app.handle(
      new Request(`http://127.0.0.1:3000/api/v1/onboardings/${onboardingIds[i % onboardingIds.length]}`, { headers: { authorization: authorization(i) } }),
    );
    await response.arrayBuffer();
    statuses[response.status] = (statuses[response.status] ?? 0) + 1;
  }
  return statuses;
}

try {
  const start = await bytes();
  const served = await calls(count, (i) => `Bearer ${keys[i % keys.length]!.key}`);
  const afterServed = await bytes();
  const { key } = await run(createApiKey(app.database, systemClock, { workspaceSlug: "bench-0", name: "hammer", mode: "live", tier: "default" }));
  const refusedStatuses = await calls(count, () => `Bearer ${key}`);
  const afterRefused = await bytes();
  const refused = refusedStatuses[429] ?? 0;
  const rows = sqlite.query("SELECT status, count(*) AS n, sum(repeat_count) AS calls FROM activity_entries GROUP BY status ORDER BY status").all();
  console.log(`served:  ${JSON.stringify(served)}  ${((afterServed - start) / count).toFixed(0)} bytes per call`);
  console.log(`refused: ${JSON.stringify(refusedStatuses)}  ${((afterRefused - afterServed) / count).toFixed(1)} bytes per call (of which ${refused} refused)`);
  console.log(`activity rows: ${JSON.stringify(rows)}`);
  // Pruning all of it, as the worker would once ACTIVITY_RETENTION passed: time per slice of 500.
  const slices: number[] = [];
  const store = createRetentionStore(app.database.sql);
  for (;;) {
    const started = performance.now();
    const deleted = run(store.pruneSlice("activity_entries", Number.MAX_SAFE_INTEGER, 500)) as number;
    slices.push(performance.now() - started);
    if (deleted < 500) break;
  }
  slices.sort((a, b) => a - b);
  console.log(`pruning: ${slices.length} slices of 500 entries, median ${slices[slices.length >> 1]!.toFixed(2)} ms, longest ${slices[slices.length - 1]!.toFixed(2)} ms (SQLite's write lock held for each)`);
} finally {
  await app.close();
}
