/**
 * `bun bench/create-shapes.ts [--seconds=N] [--rounds=N] [--callers=N] [--batches=N] ["--only=a,b"]`: what a
 * keyed create costs PostgreSQL and Bun's client in seven shapes, without HTTP or the service's code, so the
 * database's share of #26's create target can be told from the rest. Each shape writes what
 * the contract asks of a create (the Idempotency-Key's claim and stored response, the display
 * id from the workspace's sequence row, the onboarding, its `onboarding.created` event at the
 * workspace's next feed position, the activity entry), except `bare`, which is the baseline
 * server's one INSERT. 32 callers (a pool of 10, as the API's), ten workspaces, alternated
 * shape by shape for `rounds` rounds; prints creates/s, CPU of this process per create, and
 * the ratio to `bare` of the same round.
 *
 * - `bare`: one INSERT … SELECT (bench/baseline-postgres-server.ts).
 * - `awaited`: the service's statements before #26, each awaited: BEGIN, claim, customer,
 *   endpoints, sequence, insert, positions, events, activity, stored response, COMMIT.
 * - `pipelined`: the same statements, the writes sent without waiting (`Statement.send`), as
 *   the service runs them since #26.
 * - `batched`: a group commit on PostgreSQL. The creates that arrive while `--batches` (2)
 *   transactions are out wait and go together: one transaction per batch whose every statement
 *   carries the whole batch's rows (`json_to_recordset`), so a batch of n costs about the
 *   statements of one create, and a workspace's sequence and feed position move by its count
 *   in the batch.
 * - `counters apart`: `batched` with the sequence and feed position rows taken in a round trip
 *   of their own, after the claims, the reads and the activity entries: the next batch's first
 *   round trip runs while this one holds the counters.
 * - `counters last`: `batched` with the sequence and feed position rows taken by the batch's
 *   last statement (a data-modifying CTE that also writes what depends on them), so batches
 *   hold those rows' locks from that statement to COMMIT only (see writeBatchCountersLast).
 * - `one statement`: everything in one data-modifying CTE, in autocommit (the response's
 *   display id and created_at are filled into the stored body and the event by the statement
 *   itself).
 */
import { SQL, type TransactionSQL } from "bun";
import { openDatabase } from "../shared/db/client.ts";
import { newId } from "../shared/ids.ts";
import { copyToFreshPostgres } from "./lib/postgres.ts";
import { seedWorkspaces } from "./lib/seed.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback);
const seconds = arg("seconds", 5);
const rounds = arg("rounds", 3);
const callers = arg("callers", 32);
// "--only=batched,counters last" (quoted: a name has a space): those shapes, and bare (the
// ratio's base), instead of all seven.
const only = process.argv.find((a) => a.startsWith("--only="))?.slice(7).split(",");

const dir = mkdtempSync(join(tmpdir(), "create-shapes-"));
const seedDb = openDatabase(join(dir, "seed.sqlite"));
const keys = seedWorkspaces(seedDb, { orgs: 10, keysPerOrg: 10, onboardings: 0 });
const pg = await copyToFreshPostgres(seedDb, `shapes_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`);
seedDb.$client.close();
const sql = new SQL({ url: pg.url, max: 10 });

const COLUMNS = `id, org_id, customer_id, display_id, phase, state, started_at, waiting_on_customer, reminder_email, reminder_slack,
  reminder_frequency_days, created_at, updated_at, phase_entered_at, sla_suspended_micros, last_changed_mode`;
let serial = 0;
/** The API key's id as the stored claim and entry carry it (the seed answers keys only; nothing joins on it here). */
const keyIdOf = (k: (typeof keys)[number]) => `key_${k.key.slice(-16)}`;
/** One create's inputs, as the service would have them after validation. */
function input() {
  const k = keys[serial++ % keys.length]!;
  const at = Date.now() * 1000;
  return { k, at, id: newId("onb"), eventId: newId("evt"), requestId: newId("req"), idem: `shape-${serial}-${Math.random()}` };
}
/** The response body as the service builds it, with the two values only the sequence row knows left as tokens. */
const bodyOf = (id: string, customerId: string) =>
  JSON.stringify({ object: "onboarding", id, display_id: "@@display_id@@", customer_id: customerId, phase: "before_getting_started", state: "active", created_at: "@@created_at@@" });

type Shape = () => Promise<unknown>;
const shapes: Record<string, Shape> = {
  bare: async () => {
    const { k, at, id } = input();
    await sql.unsafe(
      `INSERT INTO onboardings (${COLUMNS}) SELECT $1, org_id, id, $2, 'before_getting_started', 'active', $3, false, true, true, 1, $3, $3, $3, 0, 'live' FROM customers WHERE id = $4 RETURNING *`,
      [id, 10_000_000 + serial, at, k.customerId],
    );
  },
  awaited: () => stepwise(false),
  pipelined: () => stepwise(true),
  batched: () => batched(input()),
  "counters apart": () => batched(input(), (batch) => writeBatch(batch, true)),
  "counters last": () => batched(input(), writeBatchCountersLast),
  "one statement": async () => {
    const { k, at, id, eventId, requestId, idem } = input();
    const body = bodyOf(id, k.customerId);
    // A second request with the key fails the claim's primary key and writes nothing (the whole
    // statement is one): the service would then read the stored response and replay it.
    await sql.unsafe(
      `WITH customer AS (SELECT id, org_id FROM customers WHERE id = $1 AND deleted_at IS NULL),
       seq AS (
         INSERT INTO sequences (org_id, kind, last_display_id, last_created_at) SELECT org_id, 'onboarding', 1, $2 FROM customer
         ON CONFLICT (org_id, kind) DO UPDATE SET last_display_id = sequences.last_display_id + 1,
           last_created_at = CASE WHEN excluded.last_created_at > sequences.last_created_at THEN excluded.last_created_at ELSE sequences.last_created_at + 1 END
         RETURNING org_id, last_display_id, last_created_at),
       filled AS (SELECT org_id, last_display_id, last_created_at,
         replace(replace($3, '"@@display_id@@"', last_display_id::text), '"@@created_at@@"', '"' || last_created_at::text || '"') AS body FROM seq),
       claim AS (
         INSERT INTO idempotency_keys (api_key_id, key, fingerprint, claimed_at, created_at, completed_at, response_status, response_body)
         SELECT $4, $5, 'fingerprint', $2, $2, $2, 201, body FROM filled),
       onboarding AS (
         INSERT INTO onboardings (${COLUMNS}) SELECT $6, org_id, $1, last_display_id, 'before_getting_started', 'active', last_created_at, false, true, true, 1,
           last_created_at, last_created_at, last_created_at, 0, 'live' FROM filled),
       position AS (
         INSERT INTO event_positions (org_id, last_position) SELECT org_id, 1 FROM filled
         ON CONFLICT (org_id) DO UPDATE SET last_position = event_positions.last_position + 1 RETURNING last_position),
       event AS (
         INSERT INTO events (org_id, position, id, type, object_id, livemode, actor_type, actor_name, request_id, idempotency_key, data, created_at)
         SELECT filled.org_id, position.last_position, $7, 'onboarding.created', $6, true, 'api_key', 'bench', $8, $5, '{"object":' || filled.body || '}', $2 FROM filled, position),
       activity AS (
         INSERT INTO activity_entries (request_id, org_id, key_id, actor, method, route, status, address, duration_ms, at)
         SELECT $8, org_id, $4, 'bench', 'POST', '/api/v1/onboardings', 201, '127.0.0.1', 1.5, $2 FROM filled)
       SELECT body FROM filled`,
      [k.customerId, at, body, keyIdOf(k), idem, id, eventId, requestId],
    );
  },
};

/** The service's create, statement by statement; `pipelined` sends the writes without waiting. */
async function stepwise(pipelined: boolean): Promise<void> {
  const { k, at, id, eventId, requestId, idem } = input();
  await sql.begin(async (tx) => {
    const pending: Promise<unknown>[] = [];
    const write = async (text: string, values: unknown[]) => {
      const query = tx.unsafe(text, values);
      if (pipelined) pending.push(query);
      else await query;
    };
    await tx.unsafe(`INSERT INTO idempotency_keys (api_key_id, key, fingerprint, claimed_at, created_at) VALUES ($1, $2, 'fingerprint', $3, $3) ON CONFLICT DO NOTHING`, [keyIdOf(k), idem, at]);
    const [customer] = await tx.unsafe(`SELECT id, org_id FROM customers WHERE org_id = $1 AND id = $2 AND deleted_at IS NULL`, [k.orgId, k.customerId]);
    await tx.unsafe(`SELECT id, enabled_events FROM webhook_endpoints WHERE org_id = $1 AND status = 'enabled'`, [k.orgId]);
    const [seq] = await tx.unsafe(
      `INSERT INTO sequences (org_id, kind, last_display_id, last_created_at) VALUES ($1, 'onboarding', 1, $2)
       ON CONFLICT (org_id, kind) DO UPDATE SET last_display_id = sequences.last_display_id + 1,
         last_created_at = CASE WHEN excluded.last_created_at > sequences.last_created_at THEN excluded.last_created_at ELSE sequences.last_created_at + 1 END
       RETURNING last_display_id, last_created_at`,
      [k.orgId, at],
    );
    const created = Number(seq.last_created_at);
    const body = bodyOf(id, customer.id).replace('"@@display_id@@"', String(seq.last_display_id)).replace("@@created_at@@", String(created));
    await write(
      `INSERT INTO onboardings (${COLUMNS}) VALUES ($1, $2, $3, $4, 'before_getting_started', 'active', $5, false, true, true, 1, $5, $5, $5, 0, 'live')`,
      [id, k.orgId, k.customerId, seq.last_display_id, created],
    );
    if (pipelined) {
      await write(`INSERT INTO event_positions (org_id, last_position) VALUES ($1, 1) ON CONFLICT (org_id) DO UPDATE SET last_position = event_positions.last_position + 1`, [k.orgId]);
      await write(
        `INSERT INTO events (org_id, position, id, type, object_id, livemode, actor_type, actor_name, request_id, idempotency_key, data, created_at)
         VALUES ($1, (SELECT last_position FROM event_positions WHERE org_id = $1), $2, 'onboarding.created', $3, true, 'api_key', 'bench', $4, $5, $6, $7)`,
        [k.orgId, eventId, id, requestId, idem, `{"object":${body}}`, at],
      );
    } else {
      const [position] = await tx.unsafe(
        `INSERT INTO event_positions (org_id, last_position) VALUES ($1, 1) ON CONFLICT (org_id) DO UPDATE SET last_position = event_positions.last_position + 1 RETURNING last_position`,
        [k.orgId],
      );
      await write(
        `INSERT INTO events (org_id, position, id, type, object_id, livemode, actor_type, actor_name, request_id, idempotency_key, data, created_at)
         VALUES ($1, $2, $3, 'onboarding.created', $4, true, 'api_key', 'bench', $5, $6, $7, $8)`,
        [k.orgId, position.last_position, eventId, id, requestId, idem, `{"object":${body}}`, at],
      );
    }
    await write(
      `INSERT INTO activity_entries (request_id, org_id, key_id, actor, method, route, status, address, duration_ms, at) VALUES ($1, $2, $3, 'bench', 'POST', '/api/v1/onboardings', 201, '127.0.0.1', 1.5, $4)`,
      [requestId, k.orgId, keyIdOf(k), at],
    );
    await write(`UPDATE idempotency_keys SET completed_at = $1, response_status = 201, response_body = $2 WHERE api_key_id = $3 AND key = $4`, [at, body, keyIdOf(k), idem]);
    await Promise.all(pending);
  });
}

type Input = ReturnType<typeof input>;
type Waiting = { input: Input; write: (batch: Input[]) => Promise<void>; done: (error?: unknown) => void };
const waiting: Waiting[] = [];
let batchesOut = 0;
/** Batches in flight at once (each holds a pooled connection for its transaction) and creates per batch at most. */
const BATCHES_OUT = arg("batches", 2);
const BATCH_MOST = 64;

/**
 * The group commit on PostgreSQL: the creates that arrive while `BATCHES_OUT` batches are out
 * wait, and go together as one transaction whose every statement carries the whole batch's rows
 * (`json_to_recordset`), so a batch of n costs the statements of one create. A workspace's
 * sequence and feed position move by the batch's count for it, taken in workspace order so two
 * batches never wait on each other's rows crosswise.
 */
function batched(one: Input, write = writeBatch): Promise<void> {
  return new Promise((resolve, reject) => {
    waiting.push({ input: one, write, done: (error) => (error === undefined ? resolve() : reject(error)) });
    pump();
  });
}
function pump(): void {
  while (batchesOut < BATCHES_OUT && waiting.length > 0) {
    const batch = waiting.splice(0, BATCH_MOST);
    batchesOut++;
    batch[0]!.write(batch.map((w) => w.input))
      .then(
        () => batch.forEach((w) => w.done()),
        (error) => batch.forEach((w) => w.done(error ?? new Error("batch failed"))),
      )
      .finally(() => {
        batchesOut--;
        pump();
      });
  }
}
type Tx = TransactionSQL;
const json = (rows: unknown[]) => JSON.stringify(rows);

/** A batch's first statements, sent together: the claims, the customers (FOR SHARE) and the workspaces' endpoints. */
function claimAndRead(tx: Tx, batch: Input[]) {
  const customerIds = [...new Set(batch.map((c) => c.k.customerId))];
  const orgIds = [...new Set(batch.map((c) => c.k.orgId))].sort();
  return {
    orgIds,
    claims: tx.unsafe(
      `INSERT INTO idempotency_keys (api_key_id, key, fingerprint, claimed_at, created_at)
       SELECT k, i, 'fingerprint', at, at FROM json_to_recordset($1::text::json) AS x(k text, i text, at bigint) ON CONFLICT DO NOTHING RETURNING key`,
      [json(batch.map((c) => ({ k: keyIdOf(c.k), i: c.idem, at: c.at })))],
    ),
    customers: tx.unsafe(`SELECT id, org_id FROM customers WHERE id IN (SELECT value FROM json_array_elements_text($1::text::json)) AND deleted_at IS NULL FOR SHARE`, [json(customerIds)]),
    endpoints: tx.unsafe(`SELECT org_id, id, enabled_events FROM webhook_endpoints WHERE org_id IN (SELECT value FROM json_array_elements_text($1::text::json)) AND status = 'enabled'`, [json(orgIds)]),
  };
}

/** A batch's activity entries, one statement. */
function insertActivity(tx: Tx, batch: Input[]) {
  return tx.unsafe(
    `INSERT INTO activity_entries (request_id, org_id, key_id, actor, method, route, status, address, duration_ms, at)
     SELECT req, org, k, 'bench', 'POST', '/api/v1/onboardings', 201, '127.0.0.1', 1.5, at FROM json_to_recordset($1::text::json) AS x(req text, org text, k text, at bigint)`,
    [json(batch.map((c) => ({ req: c.requestId, org: c.k.orgId, k: keyIdOf(c.k), at: c.at })))],
  );
}

/** `countersApart`: the counters in a round trip of their own, after the claims, the reads and the activity entries. */
async function writeBatch(batch: Input[], countersApart = false): Promise<void> {
  await sql.begin(async (tx) => {
    const { claims, customers, endpoints, orgIds } = claimAndRead(tx, batch);
    const counts = new Map<string, number>();
    for (const c of batch) counts.set(c.k.orgId, (counts.get(c.k.orgId) ?? 0) + 1);
    const perOrg = orgIds.map((org) => ({ org, n: counts.get(org)!, at: batch[0]!.at }));
    if (countersApart) {
      const [taken] = await Promise.all([claims, customers, endpoints, insertActivity(tx, batch)]);
      if ((taken as unknown[]).length !== batch.length) throw new Error("a claim was taken");
    }
    // The inserted row's last_display_id carries the batch's count for the workspace (n): the
    // ids n below the new last are this batch's, as are the n created_at instants up to it.
    const seq = tx.unsafe(
      `INSERT INTO sequences (org_id, kind, last_display_id, last_created_at)
       SELECT org, 'onboarding', n, at + n - 1 FROM json_to_recordset($1::text::json) AS x(org text, n int, at bigint) ORDER BY org
       ON CONFLICT (org_id, kind) DO UPDATE SET last_display_id = sequences.last_display_id + excluded.last_display_id,
         last_created_at = greatest(excluded.last_created_at, sequences.last_created_at + (excluded.last_display_id))
       RETURNING org_id, last_display_id, last_created_at`,
      [json(perOrg)],
    );
    const positions = tx.unsafe(
      `INSERT INTO event_positions (org_id, last_position) SELECT org, n FROM json_to_recordset($1::text::json) AS x(org text, n int) ORDER BY org
       ON CONFLICT (org_id) DO UPDATE SET last_position = event_positions.last_position + excluded.last_position RETURNING org_id, last_position`,
      [json(perOrg)],
    );
    const [won, , , sequences, feed] = await Promise.all([claims, customers, endpoints, seq, positions]);
    if ((won as unknown[]).length !== batch.length) throw new Error("a claim was taken");
    const next = new Map((sequences as { org_id: string; last_display_id: string; last_created_at: string }[]).map((r) => [r.org_id, { id: Number(r.last_display_id) - counts.get(r.org_id)!, at: Number(r.last_created_at) - counts.get(r.org_id)! }]));
    const nextPosition = new Map((feed as { org_id: string; last_position: string }[]).map((r) => [r.org_id, Number(r.last_position) - counts.get(r.org_id)!]));
    const rows = batch.map((c) => {
      const slot = next.get(c.k.orgId)!;
      const displayId = ++slot.id;
      const created = ++slot.at;
      const position = nextPosition.get(c.k.orgId)! + 1;
      nextPosition.set(c.k.orgId, position);
      const body = bodyOf(c.id, c.k.customerId).replace('"@@display_id@@"', String(displayId)).replace("@@created_at@@", String(created));
      return { c, displayId, created, position, body };
    });
    const writes = [
      tx.unsafe(
        `INSERT INTO onboardings (${COLUMNS}) SELECT id, org, cus, did, 'before_getting_started', 'active', at, false, true, true, 1, at, at, at, 0, 'live'
         FROM json_to_recordset($1::text::json) AS x(id text, org text, cus text, did bigint, at bigint)`,
        [json(rows.map((r) => ({ id: r.c.id, org: r.c.k.orgId, cus: r.c.k.customerId, did: r.displayId, at: r.created })))],
      ),
      tx.unsafe(
        `INSERT INTO events (org_id, position, id, type, object_id, livemode, actor_type, actor_name, request_id, idempotency_key, data, created_at)
         SELECT org, pos, id, 'onboarding.created', obj, true, 'api_key', 'bench', req, idem, data, at FROM json_to_recordset($1::text::json) AS x(org text, pos bigint, id text, obj text, req text, idem text, data text, at bigint)`,
        [json(rows.map((r) => ({ org: r.c.k.orgId, pos: r.position, id: r.c.eventId, obj: r.c.id, req: r.c.requestId, idem: r.c.idem, data: `{"object":${r.body}}`, at: r.c.at })))],
      ),
      ...(countersApart ? [] : [insertActivity(tx, batch)]),
      // An upsert on the primary key, as the service's completeMany: an UPDATE … FROM the rows is
      // planned as a hash join over the whole table, and slows every round as the table grows.
      tx.unsafe(
        `INSERT INTO idempotency_keys (api_key_id, key, fingerprint, claimed_at, created_at, completed_at, response_status, response_body)
         SELECT k, i, '', at, at, at, 201, body FROM json_to_recordset($1::text::json) AS x(k text, i text, at bigint, body text)
         ON CONFLICT (api_key_id, key) DO UPDATE SET completed_at = excluded.completed_at, response_status = excluded.response_status, response_body = excluded.response_body`,
        [json(rows.map((r) => ({ k: keyIdOf(r.c.k), i: r.c.idem, at: r.c.at, body: r.body })))],
      ),
    ];
    await Promise.all(writes);
  });
}

/**
 * `counters last`: the same rows as `batched`, but the workspace's sequence and feed position
 * rows, the only rows two batches both write, are taken by the batch's last statement. The
 * first round trip claims the keys, reads the customers (FOR SHARE) and the endpoints, and
 * writes the activity entries; the second is one data-modifying CTE that moves the counters
 * and writes everything that depends on them (the onboardings, the events, the stored
 * responses, their display id and created_at filled in by the statement). A batch holds the
 * counters' locks only from that statement to its COMMIT, so the next batch's first round
 * trip runs beside it instead of queueing behind it.
 */
async function writeBatchCountersLast(batch: Input[]): Promise<void> {
  await sql.begin(async (tx) => {
    const { claims, customers, endpoints, orgIds } = claimAndRead(tx, batch);
    const activity = insertActivity(tx, batch);
    const [won] = await Promise.all([claims, customers, endpoints, activity]);
    if ((won as unknown[]).length !== batch.length) throw new Error("a claim was taken");
    // Each create's place among its workspace's creates in this batch (ord) and their count (n).
    const counts = new Map<string, number>();
    const rows = batch.map((c) => {
      const ord = counts.get(c.k.orgId) ?? 0;
      counts.set(c.k.orgId, ord + 1);
      return { id: c.id, org: c.k.orgId, cus: c.k.customerId, ord, at: c.at, k: keyIdOf(c.k), i: c.idem, eid: c.eventId, req: c.requestId, tmpl: bodyOf(c.id, c.k.customerId) };
    });
    await tx.unsafe(
      `WITH x AS (SELECT * FROM json_to_recordset($1::text::json) AS x(id text, org text, cus text, ord int, at bigint, k text, i text, eid text, req text, tmpl text)),
       counts AS (SELECT org, count(*)::int AS n, max(at) AS at FROM x GROUP BY org),
       seq AS (
         INSERT INTO sequences (org_id, kind, last_display_id, last_created_at)
         SELECT org, 'onboarding', n, at + n - 1 FROM counts ORDER BY org
         ON CONFLICT (org_id, kind) DO UPDATE SET last_display_id = sequences.last_display_id + excluded.last_display_id,
           last_created_at = greatest(excluded.last_created_at, sequences.last_created_at + (excluded.last_display_id))
         RETURNING org_id, last_display_id, last_created_at),
       pos AS (
         INSERT INTO event_positions (org_id, last_position) SELECT org, n FROM counts ORDER BY org
         ON CONFLICT (org_id) DO UPDATE SET last_position = event_positions.last_position + excluded.last_position RETURNING org_id, last_position),
       filled AS (
         SELECT x.*, d.did, d.created, pos.last_position - c.n + 1 + x.ord AS position,
           replace(replace(x.tmpl, '"@@display_id@@"', d.did::text), '@@created_at@@', d.created::text) AS body
         FROM x JOIN counts c ON c.org = x.org JOIN seq ON seq.org_id = x.org JOIN pos ON pos.org_id = x.org,
           LATERAL (SELECT seq.last_display_id - c.n + 1 + x.ord AS did, seq.last_created_at - c.n + 1 + x.ord AS created) d),
       onboarding AS (
         INSERT INTO onboardings (${COLUMNS}) SELECT id, org, cus, did, 'before_getting_started', 'active', created, false, true, true, 1, created, created, created, 0, 'live' FROM filled),
       event AS (
         INSERT INTO events (org_id, position, id, type, object_id, livemode, actor_type, actor_name, request_id, idempotency_key, data, created_at)
         SELECT org, position, eid, 'onboarding.created', id, true, 'api_key', 'bench', req, i, '{"object":' || body || '}', at FROM filled),
       stored AS (
         INSERT INTO idempotency_keys (api_key_id, key, fingerprint, claimed_at, created_at, completed_at, response_status, response_body)
         SELECT k, i, '', at, at, at, 201, body FROM filled
         ON CONFLICT (api_key_id, key) DO UPDATE SET completed_at = excluded.completed_at, response_status = excluded.response_status, response_body = excluded.response_body)
       SELECT id, body FROM filled`,
      [json(rows)],
    );
  });
}

/** `callers` loops calling `shape` for `seconds`; creates per second and this process's CPU per create. */
async function load(shape: Shape): Promise<{ rate: number; cpu: number }> {
  const until = performance.now() + seconds * 1000;
  let done = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (performance.now() < until) {
        await shape();
        done++;
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  return { rate: (done * 1000) / (performance.now() - started), cpu: (used.user + used.system) / done };
}

try {
  // Inside the try: the database made for the run is dropped on the way out.
  const unknown = only?.filter((name) => !(name in shapes)) ?? [];
  if (unknown.length) throw new Error(`--only: no shape ${unknown.map((n) => `'${n}'`).join(", ")}; the shapes are ${Object.keys(shapes).join(", ")}`);
  for (const shape of Object.values(shapes)) await shape(); // warm: statements prepared, rows present
  console.log(`creates with ${callers} callers, a pool of 10, ten workspaces, ${seconds} s per shape, ${rounds} rounds`);
  for (let round = 1; round <= rounds; round++) {
    let bare = 0;
    for (const [name, shape] of Object.entries(shapes)) {
      if (only && name !== "bare" && !only.includes(name)) continue;
      const { rate, cpu } = await load(shape);
      if (name === "bare") bare = rate;
      console.log(`round ${round}  ${name.padEnd(14)} ${Math.round(rate).toString().padStart(6)} creates/s  ${cpu.toFixed(0).padStart(5)} µs CPU each  ratio ${(rate / bare).toFixed(2)}`);
    }
  }
} finally {
  await sql.close();
  await pg.drop();
  rmSync(dir, { recursive: true, force: true });
}
