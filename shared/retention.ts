import type { Database } from "./db/database.ts";
import { run } from "./db/flow.ts";
import { createRetentionStore } from "./db/retention.store.ts";
import { ConfigError } from "./errors.ts";

/**
 * The lifetimes of the records that grow with traffic (the contract's retention table), each set
 * by one variable: `<n>s`, `<n>m`, `<n>h` or `<n>d`. Records kept for good (timeline events and
 * phase-transition records: the SLA's source) have none.
 */
export const LIFETIMES = {
  activity_entries: { variable: "ACTIVITY_RETENTION", fallback: "90d", what: "activity entries of changes made by their route's handler, a row each" },
  // The same entries' lifetime: a page goes whole once its newest entry is past the window.
  activity_pages: { variable: "ACTIVITY_RETENTION", fallback: "90d", what: "activity entries of other calls and of changes made through a batcher, a page per workspace and flush or batch" },
  events: { variable: "EVENTS_RETENTION", fallback: "30d", what: "events of the change feed (a cursor older than this answers 410)" },
  webhook_attempts: { variable: "WEBHOOK_ATTEMPTS_RETENTION", fallback: "30d", what: "webhook delivery attempts (the endpoints' attempts log)" },
  deliveries: { variable: "DELIVERIES_RETENTION", fallback: "90d", what: "deliveries (the effects log) with an outcome" },
  outbox: { variable: "OUTBOX_RETENTION", fallback: "24h", what: "outbox rows, after their outcome is recorded" },
  audit_log: { variable: "AUDIT_RETENTION", fallback: "365d", what: "the admin area's audit log" },
  idempotency_keys: { variable: null, fallback: "24h", what: "stored responses of Idempotency-Keys (fixed by the contract)" },
} as const;

export type RetainedTable = keyof typeof LIFETIMES;
export const RETAINED_TABLES = Object.keys(LIFETIMES) as RetainedTable[];
/** Each table's lifetime, in microseconds. */
export type Lifetimes = Record<RetainedTable, number>;

const UNIT_MICROS = { s: 1e6, m: 60e6, h: 3600e6, d: 86_400e6 } as const;

/** `90d` → microseconds; anything else (no unit, zero, a fraction) is refused, naming `variable`. */
export function parseDuration(variable: string, raw: string): number {
  const match = /^(\d{1,6})([smhd])$/.exec(raw.trim());
  if (!match || Number(match[1]) === 0) throw new ConfigError(`${variable} must be a duration like 90d, 24h, 30m or 45s (got '${raw}').`);
  return Number(match[1]) * UNIT_MICROS[match[2] as keyof typeof UNIT_MICROS];
}

/** Reads the lifetimes from the environment once (start-up); a bad value stops it naming the variable. */
export function lifetimesFrom(env: Record<string, string | undefined>): Lifetimes {
  const out = {} as Lifetimes;
  for (const table of RETAINED_TABLES) {
    const { variable, fallback } = LIFETIMES[table];
    const raw = variable === null ? undefined : env[variable];
    out[table] = parseDuration(variable ?? table, raw === undefined || raw === "" ? fallback : raw);
  }
  return out;
}

const stores = new WeakMap<Database, ReturnType<typeof createRetentionStore>>();
const storeOf = (database: Database) => {
  let store = stores.get(database);
  if (!store) stores.set(database, (store = createRetentionStore(database.sql)));
  return store;
};

export interface PruneOptions {
  /** Rows per DELETE: small enough that one statement holds SQLite's write lock for a few ms. */
  sliceRows?: number;
  /** Stop after this long; the next run goes on where this one stopped. */
  budgetMs?: number;
}

/**
 * Deletes every table's expired rows as of `now`, in slices, oldest first (the feed's per
 * workspace, from its oldest position, so that it never has a hole), yielding the event
 * loop (and the write lock) between slices; answers the rows deleted per table. Safe to run
 * on several workers at once: a row deleted by one is simply not found by the other.
 */
export async function pruneExpired(database: Database, lifetimes: Lifetimes, now: number, options: PruneOptions = {}): Promise<Record<RetainedTable, number>> {
  const store = storeOf(database);
  const slice = options.sliceRows ?? 500;
  const deadline = performance.now() + (options.budgetMs ?? 30_000);
  const pruned = {} as Record<RetainedTable, number>;
  for (const table of RETAINED_TABLES) {
    pruned[table] = 0;
    const cutoff = now - lifetimes[table];
    // One for most tables; the feed's, one per workspace (retention.store.ts).
    for (const pruneSlice of await run(store.slices(table))) {
      for (;;) {
        const deleted = await run(pruneSlice(cutoff, slice));
        pruned[table] += deleted;
        // Others' writes go between slices, the feed's workspaces' included (most are one probe each).
        await new Promise((resolve) => setImmediate(resolve));
        if (deleted < slice || performance.now() > deadline) break;
      }
      if (performance.now() > deadline) break;
    }
  }
  // SQLite: the freed pages back to the file system, a slice at a time (a no-op on PostgreSQL).
  for (let freed = 1; freed > 0 && performance.now() < deadline; ) {
    freed = await run(database.sql.reclaim(RECLAIM_PAGES));
    if (freed > 0) await new Promise((resolve) => setImmediate(resolve));
  }
  return pruned;
}

/**
 * Rows pruned, per table, by every worker since Redis last lost its data: a hash in Redis beside
 * the queues (`<prefix>:retention:pruned`), which the API's /metrics reads. A count for
 * operators, not a record: losing it loses nothing.
 */
export const prunedCountKey = (prefix: string) => `${prefix}:retention:pruned`;

/** Pages handed back per step: 2,000 pages (8 MB at the default page size) hold the write lock briefly. */
const RECLAIM_PAGES = 2_000;

/** Per table: rows, the oldest row's time, bytes on disk (table and indexes), and its lifetime. */
export async function retentionStatus(database: Database, lifetimes: Lifetimes) {
  const store = storeOf(database);
  const out = [];
  for (const table of RETAINED_TABLES) out.push({ table, lifetime_micros: lifetimes[table], ...(await run(store.status(table))) });
  return out;
}
