/**
 * A/B of the SQLite statements the store move changed, in one process, against another
 * checkout of the project (`git archive <commit> | tar -x -C <dir>` plus a node_modules link):
 *
 *   bun bench/sqlite-stores-ab.ts /tmp/base-checkout
 *
 * Each side gets its own fresh database; operation by operation the two sides run back to back,
 * in alternating order, 15 rounds, and the best round of each is compared (the machine is
 * shared: the best round is the least disturbed). Time is the process's CPU time (user + system).
 * Measured per operation: authenticate (every request), an idempotent create's claim and
 * completion (every POST with Idempotency-Key), the worker's delivery bookkeeping and lookups
 * (every outbound job), and a key-usage flush of 100 keys.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Database } from "bun:sqlite";

const other = resolve(process.argv[2] ?? "");
const here = resolve(import.meta.dir, "..");
const dir = mkdtempSync(join(tmpdir(), "stores-ab-"));

type Side = { name: string; ops: Record<string, () => void | Promise<void>> };

async function side(root: string, name: string): Promise<Side> {
  const { openDatabase } = await import(`${root}/shared/db/client.ts`);
  const { systemClock } = await import(`${root}/shared/clock.ts`);
  const ws = await import(`${root}/shared/workspaces.ts`);
  const { createIdempotency } = await import(`${root}/api/idempotency/idempotency.ts`);
  const { createAuthenticator } = await import(`${root}/api/auth/authenticate.ts`);
  const { createKeyUsage } = await import(`${root}/api/auth/key-usage.ts`);
  const { createDeliveries } = await import(`${root}/worker/deliveries.ts`);
  const lookupsModule = await import(`${root}/worker/lookups.store.ts`).catch(() => import(`${root}/worker/lookups.ts`));
  const db = openDatabase(join(dir, `${name}.sqlite`));
  const createWorkspace = ws.createWorkspace ?? ws.createOrganization;
  createWorkspace(db, systemClock, { slug: "acme", name: "Acme" });
  const keys = Array.from({ length: 100 }, (_, i) => ws.createApiKey(db, systemClock, { orgSlug: "acme", workspaceSlug: "acme", name: `k${i}`, mode: "live", tier: "paid" }));
  const orgId = keys[0].row.orgId;
  const raw = db.$client as Database;
  raw.run(`INSERT INTO customers (id, org_id, display_id, name, slug, domain, status, metadata, created_at, updated_at) VALUES ('cus_1', ?, 1, 'C', 'c', NULL, 'onboarding', '{}', 1, 1)`, [orgId]);
  raw.run(
    `INSERT INTO onboardings (id, org_id, customer_id, display_id, phase, state, started_at, waiting_on_customer, reminder_email, reminder_slack, reminder_frequency_days, created_at, updated_at, phase_entered_at, last_changed_mode)
     VALUES ('onb_1', ?, 'cus_1', 1, 'kickoff', 'active', 1, 0, 1, 1, 3, 1, 1, 1, 'live')`,
    [orgId],
  );
  const apiKeyStore = await import(`${root}/api/auth/api-keys.store.ts`).then((m) => m.createApiKeyStore(db), () => db);
  const authenticate = createAuthenticator(apiKeyStore);
  const usage = createKeyUsage(apiKeyStore, systemClock);
  const idempotency = createIdempotency(db, systemClock);
  const deliveries = createDeliveries(db, systemClock);
  const lookups = lookupsModule.createLookups(db);
  let n = 0;
  const header = `Bearer ${keys[0].key}`;
  return {
    name,
    ops: {
      authenticate: () => void authenticate(header),
      "idempotent claim + completion": () => {
        const key = `k-${n++}`;
        idempotency.begin(keys[0].row.id, key, "fp");
        idempotency.execute(keys[0].row.id, key, 201, () => ({ ok: true }));
      },
      "delivery bookkeeping + lookups": async () => {
        const job = { id: `outbox-${n++}`, attemptsMade: 0, opts: { attempts: 3 } };
        await deliveries.run(job, { orgId, onboardingId: "onb_1", kind: "launch.slack_dm", target: null }, async (attempt: { sending(): void }) => {
          lookups.onboarding("onb_1");
          lookups.user(orgId, "usr_x");
          attempt.sending();
          return { status: "sent", detail: "ok" };
        });
      },
      "key-usage flush (100 keys)": () => {
        for (const k of keys) usage.record(k.row.id, "127.0.0.1");
        usage.flush();
      },
    },
  };
}

const sides = [await side(other, "A"), await side(here, "B")];
const counts: Record<string, number> = { authenticate: 20_000, "idempotent claim + completion": 2_000, "delivery bookkeeping + lookups": 2_000, "key-usage flush (100 keys)": 100 };
const best: Record<string, Record<string, number>> = {};
// Operation by operation, A and B back to back in alternating order, 15 rounds: on a shared
// machine the fastest round of each side is the one least disturbed by others.
for (let round = 0; round < 15; round++) {
  for (const op of Object.keys(counts)) {
    for (const s of round % 2 ? [...sides].reverse() : sides) {
      const run = s.ops[op]!;
      // CPU time of this process, not wall time: time spent descheduled by other load does not count.
      const started = process.cpuUsage();
      for (let i = 0; i < counts[op]!; i++) await run();
      const used = process.cpuUsage(started);
      const micros = (used.user + used.system) / counts[op]!;
      best[op] ??= {};
      best[op]![s.name] = Math.min(best[op]![s.name] ?? Infinity, micros);
    }
  }
}
rmSync(dir, { recursive: true, force: true });
console.log("| operation | A µs/op | B µs/op | B vs A |\n|---|---:|---:|---:|");
for (const [op, v] of Object.entries(best)) console.log(`| ${op} | ${v.A!.toFixed(2)} | ${v.B!.toFixed(2)} | ${(((v.B! - v.A!) / v.A!) * 100).toFixed(1)}% |`);
