/**
 * `bun bench/activity-insert-shapes.ts`: what writing activity entries costs PostgreSQL and
 * the client per row, and the WAL it writes, 64 rows a batch into the table with its own three
 * indexes, in seven shapes: a multi-row VALUES with 704 parameters and `ON CONFLICT DO NOTHING`
 * (what `insertRows` sends), the same without `ON CONFLICT` (what the request-id guard costs),
 * eleven array parameters unpacked by `unnest`, one JSON parameter unpacked by
 * `json_populate_recordset` or `jsonb_populate_recordset`, and `COPY … FROM STDIN` in its text
 * format, a batch at a time and eight batches at a time (what the API sent for a flush of read
 * calls' entries, up to 500, until #26's twenty-sixth pass wrote them as pages instead). Two callers, 1,536 batches a shape, two rounds, in a database
 * of its own that is dropped after. PostgreSQL's CPU is every `postgres` process's, from /proc
 * (bench/lib/processes.ts); the WAL is `pg_current_wal_lsn()`'s move.
 */
import { SQL } from "bun";
import { benchPostgresServer } from "./lib/postgres.ts";
import { postgresCpuSeconds } from "./lib/processes.ts";

/**
 * A value in COPY's text format: `\N` for null; a backslash, tab, newline or carriage return
 * inside text escaped, so no value can end its column or row (nor make the `\.` end-of-data
 * line: a value's backslash is always doubled). Numbers as JavaScript writes them, which
 * PostgreSQL reads back exactly for integers to 2^53 and for doubles.
 */
function copyText(value: unknown): string {
  if (value === null || value === undefined) return "\\N";
  if (typeof value === "number") return String(value);
  if (typeof value === "boolean") return value ? "t" : "f";
  if (typeof value !== "string") throw new TypeError(`copyText: a ${typeof value} has no COPY text form here`);
  return /[\\\t\n\r]/.test(value) ? value.replace(/[\\\t\n\r]/g, (c) => COPY_ESCAPES[c]!) : value;
}
const COPY_ESCAPES: Record<string, string> = { "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" };

/** Rows in COPY's text format: a line each, its `columns` read by `read`, separated by tabs. */
function copyRows<R>(rows: readonly R[], columns: readonly string[], read: (row: R, column: string) => unknown): string {
  let data = "";
  for (const row of rows) {
    for (let c = 0; c < columns.length; c++) data += (c === 0 ? "" : "\t") + copyText(read(row, columns[c]!));
    data += "\n";
  }
  return data;
}

const server = benchPostgresServer();
const name = `bench_activity_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
const admin = new SQL({ url: server, max: 1 });
await admin.unsafe(`CREATE DATABASE ${name}`);
const url = new URL(server);
url.pathname = `/${name}`;
const sql = new SQL({ url: url.toString(), max: 4 });
try {
  await sql.unsafe(`CREATE TABLE activity_entries (request_id text PRIMARY KEY, org_id text NOT NULL, key_id text NOT NULL, actor text NOT NULL,
    method text NOT NULL, route text NOT NULL, status integer NOT NULL, address text, duration_ms double precision NOT NULL, at bigint NOT NULL,
    repeat_count integer NOT NULL DEFAULT 1);
    CREATE INDEX activity_org_idx ON activity_entries (org_id, at); CREATE INDEX activity_at_idx ON activity_entries (at);`);
  const columns = ["request_id", "org_id", "key_id", "actor", "method", "route", "status", "address", "duration_ms", "at", "repeat_count"] as const;
  type Entry = Record<(typeof columns)[number], string | number>;
  let n = 0;
  const entry = (): Entry => ({
    request_id: `req_${(++n).toString(36)}_${Math.random().toString(36).slice(2)}`,
    org_id: `org_${n % 10}`,
    key_id: `key_${n % 1000}`,
    actor: "bench key",
    method: "GET",
    route: "/api/v1/onboardings/:ref",
    status: 200,
    address: "127.0.0.1",
    duration_ms: 0.412,
    at: 1_795_000_000_000_000 + n,
    repeat_count: 1,
  });
  /** Each column's PostgreSQL type, for `unnest`'s array parameters. */
  const ARRAY_TYPES: Record<(typeof columns)[number], string> = {
    request_id: "text", org_id: "text", key_id: "text", actor: "text", method: "text", route: "text",
    status: "int4", address: "text", duration_ms: "float8", at: "int8", repeat_count: "int4",
  };
  const values = Array.from({ length: 64 }, (_, i) => `(${columns.map((_, c) => `$${i * columns.length + c + 1}`).join(", ")})`).join(", ");
  const list = columns.join(", ");
  const shapes: Record<string, (rows: Entry[]) => Promise<unknown>> = {
    "VALUES, 704 parameters": (rows) => sql.unsafe(`INSERT INTO activity_entries (${list}) VALUES ${values} ON CONFLICT (request_id) DO NOTHING`, rows.flatMap((r) => columns.map((c) => r[c]))),
    "VALUES, 704 parameters, no ON CONFLICT": (rows) => sql.unsafe(`INSERT INTO activity_entries (${list}) VALUES ${values}`, rows.flatMap((r) => columns.map((c) => r[c]))),
    "jsonb_populate_recordset, 1 parameter": (rows) =>
      sql.unsafe(`INSERT INTO activity_entries (${list}) SELECT ${list} FROM jsonb_populate_recordset(NULL::activity_entries, $1::text::jsonb) ON CONFLICT (request_id) DO NOTHING`, [JSON.stringify(rows)]),
    "unnest, 11 array parameters": (rows) =>
      sql.unsafe(
        `INSERT INTO activity_entries (${list}) SELECT * FROM unnest(${columns.map((c, i) => `$${i + 1}::${ARRAY_TYPES[c]}[]`).join(", ")}) ON CONFLICT (request_id) DO NOTHING`,
        columns.map((c) => rows.map((r) => r[c])),
      ),
    "json_populate_recordset, 1 parameter": (rows) =>
      sql.unsafe(`INSERT INTO activity_entries (${list}) SELECT ${list} FROM json_populate_recordset(NULL::activity_entries, $1::text::json) ON CONFLICT (request_id) DO NOTHING`, [JSON.stringify(rows)]),
  };
  // COPY's text format (`copyRows` above).
  const copy = async (rows: Entry[]) => {
    const writer = sql.unsafe(`COPY activity_entries (${list}) FROM STDIN`).writable().getWriter();
    await writer.write(copyRows(rows, columns, (row, column) => row[column as (typeof columns)[number]]));
    await writer.close();
  };
  shapes["COPY FROM STDIN, text"] = copy;
  // 512 rows a statement (the flush's 500 would be one COPY): eight batches' rows at once.
  let held: Entry[] = [];
  shapes["COPY FROM STDIN, text, 512 rows a statement"] = async (rows) => {
    held.push(...rows);
    if (held.length < 512) return;
    const all = held;
    held = [];
    await copy(all);
  };
  const batches = 1536; // whole 512-row statements for the last shape
  const walLsn = async () => String((await sql.unsafe("SELECT pg_current_wal_lsn()::text AS lsn"))[0].lsn);
  const walBytes = async (from: string) => Number((await sql.unsafe(`SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '${from}') AS bytes`))[0].bytes);
  console.log(`| shape | client µs/row | PostgreSQL µs/row | wall µs/row | WAL bytes/row |\n|---|---|---|---|---|`);
  for (let round = 1; round <= 2; round++) {
    for (const [shape, write] of Object.entries(shapes)) {
      const lsn = await walLsn();
      const pgBefore = postgresCpuSeconds();
      const cpuBefore = process.cpuUsage();
      const started = performance.now();
      await Promise.all(Array.from({ length: 2 }, async () => {
        for (let i = 0; i < batches / 2; i++) await write(Array.from({ length: 64 }, entry));
      }));
      const cpu = process.cpuUsage(cpuBefore);
      const rows = batches * 64;
      const pgCpu = postgresCpuSeconds() - pgBefore;
      const wall = performance.now() - started;
      console.log(`| ${shape} (round ${round}) | ${((cpu.user + cpu.system) / rows).toFixed(2)} | ${((pgCpu * 1e6) / rows).toFixed(2)} | ${((wall * 1000) / rows).toFixed(2)} | ${Math.round((await walBytes(lsn)) / rows)} |`);
    }
  }
} finally {
  await sql.close();
  await admin.unsafe(`DROP DATABASE IF EXISTS ${name}`);
  await admin.close();
}
