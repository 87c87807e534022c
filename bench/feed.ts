/**
 * `bun bench/feed.ts [--events=N] [--seconds=S] [--db postgres]`: what a page of the change feed
 * costs as the feed grows, and what following it costs the writers. The real app in this
 * process (bench/lib/in-process.ts) over a fresh SQLite file, or a fresh PostgreSQL database.
 *
 * 1. **A page at any size.** Two workspaces: one with 1,000 events, one with N (10,000,000 by
 *    default), seeded straight into the table in the service's own shapes and proportions (an
 *    `onboarding.updated` for most changes, a `phase_changed` or `state_changed` for one in ten,
 *    a `customer.deleted` for one in a thousand). The same requests against each, alternated
 *    over rounds: the follower's page at the head, a catching-up page from the middle, a rare
 *    type, a family, one object, and the head cursor. Each is the p50 of sequential requests
 *    through the whole app (authentication, limits, activity entry), so the ratio large / small
 *    is what a page's cost grows with the feed.
 * 2. **Following adds no load to writers.** PATCH phase changes (each writing its events) from
 *    8 concurrent callers, alone; beside 16 followers of the same workspace keeping up (a full
 *    page read at once, 250 ms of rest at the head); beside one follower catching up from the
 *    start of the large feed at full speed. Feed reads take no lock a writer waits on (a plain
 *    SELECT on PostgreSQL, WAL readers on SQLite); here, in one process, the followers' requests
 *    also share the app's one JavaScript thread with the writers, so what the writers lose is
 *    an upper bound of the feed's cost to them.
 * 3. **The same, apart.** Writers on one API process, followers on another (`bun api/main.ts`
 *    twice over the same database and Redis), and the CPU each write cost the writers' process.
 */
import { postgresDatabase } from "../shared/db/database.ts";
import { run } from "../shared/db/flow.ts";
import { openPostgres } from "../shared/db/postgres.ts";
import { dirname } from "node:path";
import { freePort } from "../scripts/private-redis.ts";
import { percentiles } from "./lib/load.ts";
import { startInProcessApp } from "./lib/in-process.ts";
import { cpuSeconds, startBun, stop, waitForHttp } from "./lib/processes.ts";

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const dbAt = process.argv.indexOf("--db");
const engine = (dbAt >= 0 ? process.argv[dbAt + 1] : arg("db")) ?? "sqlite";
if (engine !== "sqlite" && engine !== "postgres") throw new Error(`--db must be sqlite or postgres (got '${engine}')`);
const LARGE = Number(arg("events") ?? 10_000_000);
const SMALL = 1_000;
const SECONDS = Number(arg("seconds") ?? 5);
const ROUNDS = Number(arg("rounds") ?? 3);
const SAMPLES = Number(arg("samples") ?? 300);

// 1,000 paid keys a workspace: the requests of every section, rotated over them, stay below each key's limit.
const app = await startInProcessApp({ keys: 1_000, onboardings: 2_000, engine, workspaces: 2 });
const { built, database, keys, onboardingIds } = app;
const small = keys.filter((k) => k.orgId === keys[0]!.orgId);
const large = keys.filter((k) => k.orgId !== keys[0]!.orgId);
const log = (line: string) => console.log(line);

// On PostgreSQL a database handle of its own: a slice may take longer than the app's statement_timeout.
const seeder = app.postgresUrl ? postgresDatabase(await openPostgres(app.postgresUrl, { poolSize: 1, statementTimeoutMs: 600_000 })) : database;
try {
  // ---- seeding: N events in the service's shapes, one statement per slice on both engines ------
  // The data of one real event (an onboarding's phase change through the API) is every seeded event's data.
  const first = await built.app.handle(
    new Request(`http://127.0.0.1:3000/api/v1/onboardings/${onboardingIds[0]}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${small[0]!.key}`, "content-type": "application/json" },
      body: JSON.stringify({ phase: "review" }),
    }),
  );
  if (first.status !== 200) throw new Error(`the first PATCH answered ${first.status}`);
  const template = (await run(database.sql.statement<{ data: string }>("SELECT data FROM events WHERE org_id = $orgId ORDER BY position LIMIT 1").get({ orgId: small[0]!.orgId })))!.data;
  log(`engine: ${engine}; each event's data ${template.length} bytes (a real onboarding.updated)`);

  const SEED = `WITH RECURSIVE n(i) AS (SELECT CAST($from AS BIGINT) UNION ALL SELECT i + 1 FROM n WHERE i < $to)
    INSERT INTO events (org_id, position, id, type, object_id, livemode, actor_type, actor_name, request_id, idempotency_key, data, created_at)
    SELECT $orgId, i, 'evt_' || $stem || CAST(100000000000000000 + i AS TEXT),
      CASE WHEN i % 1000 = 0 THEN 'customer.deleted' WHEN i % 10 = 1 THEN 'onboarding.phase_changed' WHEN i % 10 = 2 THEN 'onboarding.state_changed' ELSE 'onboarding.updated' END,
      'onb_seed' || CAST(i % $objects AS TEXT), (i = i), 'api_key', 'Seed key', NULL, NULL, $data, $base + i FROM n`;
  const seedSlice = seeder.sql.statement(SEED);
  async function seed(orgId: string, from: number, to: number, count: number): Promise<void> {
    // Ids of evt_ and 26 of [0-9A-Z], as cursors name them: 8 letters per workspace, 18 digits.
    const stem = orgId === small[0]!.orgId ? "SEEDSMAL" : "SEEDLARG";
    // About 100 events per object in either workspace, so one object's page is a full page in both.
    const params = { from, to, orgId, stem, data: template, base: Date.now() * 1000, objects: Math.max(1, Math.floor(count / 100)) };
    await run(seedSlice.run(params));
  }
  async function fill(orgId: string, count: number): Promise<void> {
    const started = performance.now();
    // After the events already there (the small workspace's real ones).
    const head = await run(database.sql.statement<{ last: number }>("SELECT last_position AS last FROM event_positions WHERE org_id = $orgId").get({ orgId }));
    const base = Number(head?.last ?? 0);
    for (let from = base + 1; from <= base + count; from += 250_000) {
      await seed(orgId, from, Math.min(base + count, from + 249_999), count);
      if (count > 1_000_000) process.stdout.write(`\r  ${(from + 249_999 - base).toLocaleString()} of ${count.toLocaleString()}`);
    }
    await run(
      database.sql
        .statement(
          `INSERT INTO event_positions (org_id, last_position) VALUES ($orgId, $last)
           ON CONFLICT (org_id) DO UPDATE SET last_position = excluded.last_position`,
        )
        .run({ orgId, last: base + count }),
    );
    if (count > 1_000_000) process.stdout.write("\n");
    log(`seeded ${count.toLocaleString()} events in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
  await fill(small[0]!.orgId, SMALL - 2); // beside the PATCH's two
  await fill(large[0]!.orgId, LARGE);
  // As autovacuum would after a bulk load; SQLite plans from its indexes' shapes, without statistics.
  if (database.engine === "postgres") await run(seeder.sql.statement("ANALYZE events").run());

  // ---- 1. a page at any size ---------------------------------------------------------------------
  const cursorAt = (position: number) => Buffer.from(`1:${position}:`).toString("base64url");
  const pages = (size: number) => ({
    "follower at the head (after = head − 100)": `/api/v1/events?limit=100&after=${cursorAt(size - 100)}`,
    "catching up (after = the middle)": `/api/v1/events?limit=100&after=${cursorAt(size >> 1)}`,
    "a rare type (customer.deleted, 1 in 1,000) after head − 1,000": `/api/v1/events?limit=100&type=customer.deleted&after=${cursorAt(size - 1_000)}`,
    "a family (onboarding.*) from the middle": `/api/v1/events?limit=100&type=onboarding.*&after=${cursorAt(size >> 1)}`,
    "one object's events (about 100)": "/api/v1/events?limit=100&object_id=onb_seed7",
    "the head cursor": "/api/v1/events/cursor",
  });
  let call = 0;
  // Requests go to the in-process app (sections 1 and 2) or over HTTP to API processes (section 3).
  const inProcess = (path: string, init?: RequestInit) => built.app.handle(new Request(`http://127.0.0.1:3000${path}`, init));
  let sendRead = inProcess;
  let sendWrite = inProcess;
  async function get(path: string, workspaceKeys: typeof keys): Promise<Response> {
    const key = workspaceKeys[call++ % workspaceKeys.length]!.key;
    const response = await sendRead(path, { headers: { authorization: `Bearer ${key}` } });
    if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
    return response;
  }
  async function p50(path: string, workspaceKeys: typeof keys): Promise<number> {
    const samples: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      const started = performance.now();
      await (await get(path, workspaceKeys)).arrayBuffer();
      samples.push(performance.now() - started);
    }
    return percentiles(samples).p50;
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
  const ms = (v: number) => `${v.toFixed(2)} ms`;

  log(`\n### a page's p50 with ${SMALL.toLocaleString()} and ${LARGE.toLocaleString()} events (${SAMPLES} sequential requests, ${ROUNDS} rounds alternated)`);
  const smallPages = pages(SMALL);
  const largePages = pages(LARGE);
  /** Two requests' p50s, alternated over the rounds (warmed first, untimed), and their ratio. */
  async function compare(name: string, a: [string, typeof keys], b: [string, typeof keys]): Promise<[number, number]> {
    await p50(...a);
    await p50(...b);
    const first: number[] = [];
    const second: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      first.push(await p50(...a));
      second.push(await p50(...b));
    }
    log(`${name.padEnd(64)} ${ms(median(first)).padStart(9)}  ${ms(median(second)).padStart(9)}  ratio ${(median(second) / median(first)).toFixed(2)}`);
    return [median(first), median(second)];
  }
  for (const name of Object.keys(smallPages) as (keyof typeof smallPages)[]) await compare(name, [smallPages[name], small], [largePages[name], large]);

  // A full page of a rare type spans 100,000 positions; it should cost what 100 consecutive events do.
  log(`\n### in the ${LARGE.toLocaleString()}-event feed, from the middle: 100 events of every type, then 100 of a type found once in 1,000 positions`);
  await compare("a full page, every type / a rare type", [largePages["catching up (after = the middle)"], large], [`/api/v1/events?limit=100&type=customer.deleted&after=${cursorAt(LARGE >> 1)}`, large]);

  // ---- 2. following adds no load to writers ------------------------------------------------------
  interface Writes {
    rate: number;
    p50: number;
    p99: number;
  }
  let visit = 0;
  /** 8 callers changing phases in the small workspace for SECONDS; each request really changes a phase. */
  async function writers(): Promise<Writes> {
    const samples: number[] = [];
    const end = performance.now() + SECONDS * 1000;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (performance.now() < end) {
          const n = visit++;
          const id = onboardingIds[n % onboardingIds.length]!;
          const phase = Math.floor(n / onboardingIds.length) % 2 ? "review" : "program_buildout";
          const started = performance.now();
          const response = await sendWrite(`/api/v1/onboardings/${id}`, {
            method: "PATCH",
            headers: { authorization: `Bearer ${small[n % small.length]!.key}`, "content-type": "application/json" },
            body: JSON.stringify({ phase }),
          });
          await response.arrayBuffer();
          if (response.status !== 200) throw new Error(`a PATCH answered ${response.status}`);
          samples.push(performance.now() - started);
        }
      }),
    );
    return { rate: samples.length / SECONDS, ...percentiles(samples) };
  }
  /** Followers until `done`: each reads pages after its cursor, at once while they come back full, and waits `pauseMs` when it reaches the head. */
  async function followers(count: number, workspaceKeys: typeof keys, pauseMs: number, from: string | null, done: () => boolean): Promise<{ pages: number; events: number }> {
    let pages = 0;
    let events = 0;
    await Promise.all(
      Array.from({ length: count }, async () => {
        let cursor = from ?? ((await (await get("/api/v1/events/cursor", workspaceKeys)).json()) as { cursor: string }).cursor;
        while (!done()) {
          const page = (await (await get(`/api/v1/events?limit=100&after=${cursor}`, workspaceKeys)).json()) as { data: unknown[]; next_cursor: string };
          cursor = page.next_cursor;
          pages++;
          events += page.data.length;
          if (page.data.length < 100) await Bun.sleep(pauseMs);
        }
      }),
    );
    return { pages, events };
  }
  async function beside(start: (done: () => boolean) => Promise<{ pages: number; events: number }>): Promise<Writes & { pages: number; events: number }> {
    let finished = false;
    const reading = start(() => finished);
    const writes = await writers();
    finished = true;
    return { ...writes, ...(await reading) };
  }

  log(`\n### PATCH phase changes from 8 callers, ${SECONDS} s each, ${ROUNDS} rounds alternated`);
  const runs = { alone: [] as Writes[], head: [] as (Writes & { pages: number; events: number })[], catchUp: [] as (Writes & { pages: number; events: number })[] };
  await writers(); // warm, untimed
  for (let round = 0; round < ROUNDS; round++) {
    runs.alone.push(await writers());
    runs.head.push(await beside((done) => followers(16, small, 250, null, done)));
    runs.catchUp.push(await beside((done) => followers(1, large, 0, cursorAt(0), done)));
  }
  const base = median(runs.alone.map((w) => w.rate));
  const line = (name: string, list: (Writes & { pages?: number; events?: number })[], against = base) => {
    const rate = median(list.map((w) => w.rate));
    const read = list[0]!.pages === undefined ? "" : `; the followers read ${Math.round(median(list.map((w) => w.pages!)) / SECONDS).toLocaleString()} pages/s, ${Math.round(median(list.map((w) => w.events!)) / SECONDS).toLocaleString()} events/s`;
    log(`${name.padEnd(48)} ${Math.round(rate).toString().padStart(5)} writes/s  p50 ${ms(median(list.map((w) => w.p50)))}  p99 ${ms(median(list.map((w) => w.p99)))}  ratio ${(rate / against).toFixed(2)}${read}`);
  };
  line("alone", runs.alone);
  line("beside 16 followers keeping up", runs.head);
  line("beside 1 follower catching up at full speed", runs.catchUp);

  // ---- 3. the same, writers and followers on API processes of their own -------------------------
  // Two `bun api/main.ts` over this database and Redis: the writers call one, the followers the
  // other, over loopback HTTP. The machine's two cores are still shared, so beside the writers'
  // rate this reports what each write cost the writers' API process in CPU: a follower that
  // loaded the writers would raise it (or hold them on a lock, which lowers the rate alone).
  const ports = [await freePort(), await freePort()];
  const env = (port: number) => ({
    PORT: String(port),
    DATABASE_URL: app.postgresUrl ?? `file:${app.file}`,
    REDIS_URL: app.redisUrl,
    QUEUE_PREFIX: "cost",
    LOG_LEVEL: "warn",
    DATA_DIR: dirname(app.file),
    SECRET_KEY: "f".repeat(40),
  });
  const writerApi = startBun("api/main.ts", env(ports[0]!));
  const readerApi = startBun("api/main.ts", env(ports[1]!));
  try {
    const [writerUrl, readerUrl] = ports.map((port) => `http://127.0.0.1:${port}`) as [string, string];
    await Promise.all([waitForHttp(`${writerUrl}/api/v1/health`), waitForHttp(`${readerUrl}/api/v1/health`)]);
    call = 0;
    const over = (url: string) => (path: string, init?: RequestInit) => fetch(`${url}${path}`, init);
    sendWrite = over(writerUrl);
    sendRead = over(readerUrl);
    const measuredWrites = async (start?: (done: () => boolean) => Promise<{ pages: number; events: number }>) => {
      const before = cpuSeconds(writerApi.pid);
      const result = start ? await beside(start) : await writers();
      return { ...result, cpuMicros: ((cpuSeconds(writerApi.pid) - before) * 1e6) / Math.max(1, result.rate * SECONDS) };
    };
    log(`\n### the same with the writers on one API process and the followers on another (${SECONDS} s each, ${ROUNDS} rounds alternated)`);
    type Measured = Writes & { pages?: number; events?: number; cpuMicros: number };
    const apart = { alone: [] as Measured[], head: [] as Measured[], catchUp: [] as Measured[] };
    await writers(); // warm, untimed
    for (let round = 0; round < ROUNDS; round++) {
      apart.alone.push(await measuredWrites());
      apart.head.push(await measuredWrites((done) => followers(16, small, 250, null, done)));
      apart.catchUp.push(await measuredWrites((done) => followers(1, large, 0, cursorAt(0), done)));
    }
    const baseApart = median(apart.alone.map((w) => w.rate));
    const baseCpu = median(apart.alone.map((w) => w.cpuMicros));
    const lineApart = (name: string, list: Measured[]) => {
      line(name, list, baseApart);
      const cpu = median(list.map((w) => w.cpuMicros));
      log(`${"".padEnd(48)} the writers' API process spent ${cpu.toFixed(0)} µs of CPU per write (${(cpu / baseCpu).toFixed(2)}× alone)`);
    };
    lineApart("apart: alone", apart.alone);
    lineApart("apart: beside 16 followers keeping up", apart.head);
    lineApart("apart: beside 1 follower catching up at full speed", apart.catchUp);
  } finally {
    await Promise.all([stop(writerApi), stop(readerApi)]);
  }

} finally {
  if (seeder !== database) await seeder.close();
  await app.close();
}
process.exit(0);
