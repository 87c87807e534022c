/**
 * `bun bench/activity-table-shapes.ts [--rounds=N]`: what an activity entry costs SQLite to
 * write, per entry, in the table as the migrations make it and in the shapes a redesign of it
 * would take, each the ratio to the table as it is, measured in the same run.
 *
 * Each shape is a fresh file in WAL mode with the service's settings (shared/db/client.ts:
 * synchronous NORMAL, incremental auto-vacuum), filled with 100,000 entries first so that its
 * B-trees are not tiny, then timed over 100,000 more: one prepared one-row INSERT per entry with
 * `ON CONFLICT DO NOTHING`, in transactions of 500 entries (the writer thread's slices,
 * api/activity/activity-recorder.ts), a passive checkpoint every 20 transactions (the API's
 * checkpoint thread). Entries are spread over ten workspaces and 3,000 keys with request ids
 * made as the API makes them (time-ordered ULIDs), as `bench/run.ts`'s read load writes them.
 * CPU is this process's (user + system); the entries are made before the clock starts.
 *
 * The shapes:
 * - `as migrated`: rowid, primary key on `request_id`, `(org_id, at)`, `(at)`;
 * - `without (at)`: retention would delete in the request id's order (a ULID's time);
 * - `keyed (org_id, request_id), WITHOUT ROWID`: one B-tree serving the workspace's pages and
 *   the request id's uniqueness within it;
 * - the same with `UNIQUE (request_id)`: what an older release's `ON CONFLICT (request_id)`
 *   needs to keep working beside it during a rolling upgrade;
 * - `no index` (rowid only): the floor, what the row itself costs;
 * - `a workspace's entries of a slice as one row`: not a row an entry but a page of them, each
 *   workspace's entries of the 500 as one row of JSON text (keyed by a ULID, indexed on
 *   `(org_id, last_at)` and `(last_at)` for its readers and retention). Its time includes
 *   grouping the entries and `JSON.stringify`, which the other shapes are spared (today's
 *   writer thread parses the slice's JSON instead), so it is, if anything, overstated.
 *
 * Then `as migrated` again in transactions of 100 and 2,000 entries: what a commit costs.
 */
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ulid } from "../shared/ids.ts";

const rounds = Number(process.argv.find((a) => a.startsWith("--rounds="))?.slice("--rounds=".length) ?? 3);
/** Every column but the request id, as the migrations make them. */
const OTHER_COLUMNS = "org_id text NOT NULL, key_id text NOT NULL, actor text NOT NULL, method text NOT NULL, route text NOT NULL, status integer NOT NULL, address text, duration_ms real NOT NULL, at integer NOT NULL, repeat_count integer DEFAULT 1 NOT NULL";
const COLUMNS = `request_id text NOT NULL, ${OTHER_COLUMNS}`;
/** The table as the migrations make it, without its `(at)` index. */
const KEYED_BY_REQUEST = `CREATE TABLE a (request_id text PRIMARY KEY NOT NULL, ${OTHER_COLUMNS}); CREATE INDEX a_org ON a (org_id, at);`;
const MIGRATED = `${KEYED_BY_REQUEST} CREATE INDEX a_at ON a (at);`;
/** One row a workspace and slice: its entries as JSON text, with what its readers and retention need. */
const PAGES = `CREATE TABLE a (id text PRIMARY KEY NOT NULL, org_id text NOT NULL, first_at integer NOT NULL, last_at integer NOT NULL, entry_count integer NOT NULL, entries text NOT NULL);
  CREATE INDEX a_org ON a (org_id, last_at); CREATE INDEX a_at ON a (last_at);`;
const SHAPES: { name: string; ddl: string; perTransaction: number; pages?: true }[] = [
  { name: "as migrated", ddl: MIGRATED, perTransaction: 500 },
  { name: "without (at)", ddl: KEYED_BY_REQUEST, perTransaction: 500 },
  { name: "keyed (org_id, request_id), WITHOUT ROWID", ddl: `CREATE TABLE a (${COLUMNS}, PRIMARY KEY (org_id, request_id)) WITHOUT ROWID;`, perTransaction: 500 },
  { name: "the same with UNIQUE (request_id)", ddl: `CREATE TABLE a (${COLUMNS}, PRIMARY KEY (org_id, request_id), UNIQUE (request_id)) WITHOUT ROWID;`, perTransaction: 500 },
  { name: "no index", ddl: `CREATE TABLE a (${COLUMNS});`, perTransaction: 500 },
  { name: "a workspace's entries of a slice as one row", ddl: PAGES, perTransaction: 500, pages: true },
  { name: "as migrated, 100 a transaction", ddl: MIGRATED, perTransaction: 100 },
  { name: "as migrated, 2,000 a transaction", ddl: MIGRATED, perTransaction: 2000 },
];

const FILL = 100_000;
const TIMED = 100_000;
const orgs = Array.from({ length: 10 }, () => `org_${ulid()}`);
const entries = Array.from({ length: FILL + TIMED }, (_, i) => [
  `req_${ulid()}`, orgs[i % orgs.length]!, `key_${i % 3000}`, "bench key", "GET", "/api/v1/onboardings/:onboarding_ref", 200, "127.0.0.1", 0.412, Date.now() * 1000 + i, 1,
] as const);
type Entries = typeof entries;

/** A row an entry: one prepared INSERT each, in one transaction. */
function rowsWriter(db: Database): (rows: Entries) => void {
  const insert = db.prepare("INSERT INTO a VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING");
  return db.transaction((rows: Entries) => {
    for (const row of rows) insert.run(...row);
  });
}

/** A row a workspace: the slice's entries grouped by workspace, each group one row of JSON text. */
function pagesWriter(db: Database): (rows: Entries) => void {
  const insert = db.prepare("INSERT INTO a VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING");
  return db.transaction((rows: Entries) => {
    const byWorkspace = new Map<string, Entries[number][]>();
    for (const row of rows) {
      const group = byWorkspace.get(row[1]);
      if (group) group.push(row);
      else byWorkspace.set(row[1], [row]);
    }
    for (const [orgId, group] of byWorkspace) insert.run(ulid(), orgId, group[0]![9], group[group.length - 1]![9], group.length, JSON.stringify(group));
  });
}

const dir = mkdtempSync(join(tmpdir(), "activity-shapes-"));
const perRow: Record<string, number[]> = {};
try {
  for (let round = 1; round <= rounds; round++) {
    for (const shape of SHAPES) {
      const db = new Database(join(dir, `r${round}-${SHAPES.indexOf(shape)}.sqlite`));
      db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA auto_vacuum = INCREMENTAL; PRAGMA wal_autocheckpoint = 0");
      db.exec(shape.ddl);
      const write = shape.pages ? pagesWriter(db) : rowsWriter(db);
      const writeAll = (from: number, to: number) => {
        for (let i = from, n = 0; i < to; i += shape.perTransaction, n++) {
          write(entries.slice(i, Math.min(to, i + shape.perTransaction)));
          if (n % 20 === 19) db.exec("PRAGMA wal_checkpoint(PASSIVE)");
        }
      };
      writeAll(0, FILL);
      db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
      const before = process.cpuUsage();
      writeAll(FILL, FILL + TIMED);
      db.exec("PRAGMA wal_checkpoint(PASSIVE)");
      const cpu = process.cpuUsage(before);
      (perRow[shape.name] ??= []).push((cpu.user + cpu.system) / TIMED);
      db.close();
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const range = (values: number[]) => `${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)}`;
const baseline = perRow[SHAPES[0]!.name]!;
console.log(`### an activity entry written to SQLite, CPU per entry (${rounds} rounds, ${TIMED.toLocaleString()} entries each, after ${FILL.toLocaleString()})\n`);
console.log("| shape | µs an entry | ratio to as migrated (same round) |\n|---|---|---|");
for (const [name, values] of Object.entries(perRow)) console.log(`| ${name} | ${range(values)} | ${range(values.map((v, i) => v / baseline[i]!))} |`);
