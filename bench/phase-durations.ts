/**
 * `bun bench/phase-durations.ts [--onboardings=N] [--transitions=N] [--samples=N] [--rounds=R] [--db postgres]`:
 * what the SLA's reads cost in a large workspace. One workspace of 100,000 onboardings (over
 * 1,000 customers) and 1,000,000 phase transitions over twelve months, with its monthly
 * aggregate, seeded straight into SQLite (and copied into a fresh PostgreSQL database with
 * --db postgres); the API (`bun api/main.ts`) in a process of its own; requests one at a time
 * from this process, p50 and p99 of each, rounds alternated with the baseline.
 *
 * - **phase-durations**: `GET /api/v1/onboardings/{id}/phase_durations` for random onboardings
 *   (10 visits each on average), against `GET /api/v1/onboardings/{id}` of the same ones (the
 *   same pipeline and row, without the transitions): target p50 ≤ 5 ms.
 * - **report**: `GET /api/v1/reports/phase_durations` over all time, over a quarter whose ends
 *   fall mid-month (whole months from the aggregate, the edges visit by visit), and for one
 *   customer (its ~1,000 visits one by one), against a page of 100 onboardings
 *   (`GET /api/v1/onboardings?limit=100`): target p50 ≤ 200 ms.
 *
 * Prints one JSON line last: `{"durations": {p50, p99}, "report": {p50, p99}, …}` (the worst of
 * the three report shapes) for bench/run.ts.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateApiKey } from "../shared/api-keys.ts";
import { openDatabase, writeTransaction } from "../shared/db/client.ts";
import { PHASES } from "../shared/domain.ts";
import { newId } from "../shared/ids.ts";
import { durationBucket, launchDelaySeconds, monthOf } from "../shared/phase-durations.ts";
import { freePort, startPrivateRedis } from "../scripts/private-redis.ts";
import { percentiles } from "./lib/load.ts";
import { copyToFreshPostgres } from "./lib/postgres.ts";
import { startBun, stop, waitForHttp } from "./lib/processes.ts";

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const dbAt = process.argv.indexOf("--db");
const engine = (dbAt >= 0 ? process.argv[dbAt + 1] : arg("db")) ?? "sqlite";
if (engine !== "sqlite" && engine !== "postgres") throw new Error(`--db must be sqlite or postgres (got '${engine}')`);
const ONBOARDINGS = Number(arg("onboardings") ?? 100_000);
const TRANSITIONS = Number(arg("transitions") ?? 1_000_000);
const SAMPLES = Number(arg("samples") ?? 300);
const ROUNDS = Number(arg("rounds") ?? 3);
const CUSTOMERS = Math.max(1, Math.round(ONBOARDINGS / 100));
const KEYS = 400;

const log = (line: string) => console.log(line);
const HOUR = 3600 * 1_000_000;
const YEAR_START = Date.UTC(2025, 11, 1) * 1000;
const YEAR = 365 * 24 * HOUR;

// ---- seed ------------------------------------------------------------------------------------

/** A small deterministic generator, so every run seeds the same workspace. */
function random(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Each onboarding starts somewhere in the year and makes its share of the transitions: mostly
 * a step forward, sometimes one back (a review sent back to design), a few days to a few weeks
 * a visit, now and then a stretch waiting on the customer. Rows, the transitions with their
 * derived fields, and the monthly aggregate are written as the API would have left them.
 */
function seed(file: string) {
  const db = openDatabase(file);
  const rand = random(25);
  const orgId = newId("org");
  // 400 paid keys, rotated per request as in the other benchmarks: no run meets a rate limit.
  const keys = Array.from({ length: KEYS }, () => generateApiKey("live"));
  const customers = Array.from({ length: CUSTOMERS }, () => newId("cus"));
  const onboardingIds: string[] = [];
  const visitMonths = new Map<string, { visits: number; active: number }>();
  const launchMonths = new Map<string, { launches: number; onTime: number; late: number; delay: number }>();

  writeTransaction(db, () => {
    db.$client.run("INSERT INTO organizations (id, slug, name, launch_recap_enabled, created_at) VALUES (?, 'sla-bench', 'SLA bench', 0, ?)", [orgId, YEAR_START]);
    for (const [k, { prefix, hash }] of keys.entries()) {
      db.$client.run("INSERT INTO api_keys (id, org_id, name, prefix, key_hash, mode, rate_limit_tier, created_at) VALUES (?, ?, ?, ?, ?, 'live', 'paid', ?)", [newId("key"), orgId, `bench-${k}`, prefix, hash, YEAR_START]);
    }
    const customer = db.$client.prepare(
      `INSERT INTO customers (id, org_id, display_id, name, slug, status, metadata, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 'onboarding', '{}', ?, ?)`,
    );
    customers.forEach((id, i) => customer.run(id, orgId, i + 1, `Customer ${i + 1}`, `customer-${i + 1}`, YEAR_START + i, YEAR_START + i));
    db.$client.run("INSERT INTO sequences (org_id, kind, last_display_id, last_created_at) VALUES (?, 'customer', ?, ?)", [orgId, CUSTOMERS, YEAR_START + CUSTOMERS]);
  });

  const onboarding = db.$client.prepare(
    `INSERT INTO onboardings (id, org_id, customer_id, display_id, phase, state, started_at, target_launch_date, target_launch_at, waiting_on_customer,
       reminder_email, reminder_slack, reminder_frequency_days, created_at, updated_at, phase_entered_at, sla_suspended_micros, last_changed_mode)
     VALUES (?, ?, ?, ?, ?, 'active', ?, ?, ?, 0, 1, 1, 1, ?, ?, ?, 0, 'live')`,
  );
  const transition = db.$client.prepare(
    `INSERT INTO phase_transitions (source, org_id, customer_id, onboarding_id, from_phase, to_phase, at, actor, phase_entered_at,
       sla_suspended_seconds, active_seconds, first_launch, launch_delay_seconds)
     VALUES (?, ?, ?, ?, ?, ?, ?, 'bench', ?, ?, ?, ?, ?)`,
  );
  const perOnboarding = TRANSITIONS / ONBOARDINGS;
  let written = 0;
  const chunk = 5_000;
  for (let start = 0; start < ONBOARDINGS; start += chunk) {
    writeTransaction(db, () => {
      for (let i = start; i < Math.min(ONBOARDINGS, start + chunk); i++) {
        const id = newId("onb");
        onboardingIds.push(id);
        const customerId = customers[i % CUSTOMERS]!;
        const createdAt = YEAR_START + Math.floor((i / ONBOARDINGS) * YEAR * 0.7) + (i % 1000);
        const target = createdAt + Math.floor((40 + rand() * 60) * 24) * HOUR;
        const targetText = new Date(target / 1000).toISOString().replace(/\.\d+Z$/, "Z");
        // This onboarding's share: the remainder spread so the total is exact.
        const moves = Math.floor((i + 1) * perOnboarding) - Math.floor(i * perOnboarding);
        let phase = 0;
        let enteredAt = createdAt;
        let launched = false;
        for (let m = 0; m < moves; m++) {
          const to = phase >= 5 ? (phase === 6 ? 5 : 6) : rand() < 0.15 && phase > 0 ? phase - 1 : phase + 1;
          const at = enteredAt + Math.floor((1 + rand() * 14) * 24 * HOUR) + 1;
          const suspended = rand() < 0.2 ? Math.floor(rand() * ((at - enteredAt) / 2_000_000)) : 0;
          const active = (at - enteredAt) / 1_000_000 - suspended;
          const firstLaunch: boolean = to === 5 && !launched;
          launched ||= firstLaunch;
          const delay = firstLaunch ? launchDelaySeconds(at, target) : null;
          transition.run(`${id}:${at}`, orgId, customerId, id, PHASES[phase]!, PHASES[to]!, at, enteredAt, suspended, active, firstLaunch ? 1 : 0, delay);
          const month = monthOf(at);
          const key = `${month}|${PHASES[phase]}|${durationBucket(active)}`;
          const v = visitMonths.get(key) ?? { visits: 0, active: 0 };
          v.visits += 1;
          v.active += active;
          visitMonths.set(key, v);
          if (firstLaunch) {
            const l = launchMonths.get(month) ?? { launches: 0, onTime: 0, late: 0, delay: 0 };
            l.launches += 1;
            if (delay === 0) l.onTime += 1;
            else (l.late += 1), (l.delay += delay!);
            launchMonths.set(month, l);
          }
          phase = to;
          enteredAt = at;
          written += 1;
        }
        onboarding.run(id, orgId, customerId, i + 1, PHASES[phase]!, createdAt, targetText, target, createdAt, enteredAt, enteredAt);
      }
    });
  }
  writeTransaction(db, () => {
    db.$client.run("INSERT INTO sequences (org_id, kind, last_display_id, last_created_at) VALUES (?, 'onboarding', ?, ?)", [orgId, ONBOARDINGS, YEAR_START + YEAR]);
    const visit = db.$client.prepare("INSERT INTO phase_visit_months (org_id, month, phase, bucket, visits, active_seconds) VALUES (?, ?, ?, ?, ?, ?)");
    for (const [k, v] of visitMonths) {
      const [month, phase, bucket] = k.split("|");
      visit.run(orgId, month!, phase!, Number(bucket), v.visits, v.active);
    }
    const launch = db.$client.prepare("INSERT INTO launch_months (org_id, month, launches, on_time, late, delay_seconds) VALUES (?, ?, ?, ?, ?, ?)");
    for (const [month, l] of launchMonths) launch.run(orgId, month, l.launches, l.onTime, l.late, l.delay);
  });
  return { db, keys: keys.map((k) => k.key), customers, onboardingIds, written };
}

// ---- run -------------------------------------------------------------------------------------

const dir = mkdtempSync(join(tmpdir(), "phase-durations-bench-"));
const redis = await startPrivateRedis();
let postgres: Awaited<ReturnType<typeof copyToFreshPostgres>> | undefined;
let api: ReturnType<typeof startBun> | undefined;
try {
  const file = join(dir, "service.sqlite");
  const seeding = performance.now();
  const seeded = seed(file);
  log(`seeded ${ONBOARDINGS.toLocaleString()} onboardings over ${CUSTOMERS.toLocaleString()} customers, ${seeded.written.toLocaleString()} transitions in ${((performance.now() - seeding) / 1000).toFixed(1)} s`);
  if (engine === "postgres") {
    const copying = performance.now();
    postgres = await copyToFreshPostgres(seeded.db, `sla_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`);
    log(`copied into PostgreSQL in ${((performance.now() - copying) / 1000).toFixed(1)} s`);
  }
  seeded.db.$client.close();

  const port = await freePort();
  api = startBun("api/main.ts", {
    PORT: String(port),
    DATABASE_URL: postgres ? postgres.url : `file:${file}`,
    REDIS_URL: redis.url,
    QUEUE_PREFIX: "sla-bench",
    LOG_LEVEL: "warn",
    DATA_DIR: dir,
  });
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(`${base}/api/v1/health`);
  let sent = 0;
  const headers = () => ({ authorization: `Bearer ${seeded.keys[sent++ % KEYS]}` });
  const rand = random(7);
  const pick = <T>(list: readonly T[]) => list[Math.floor(rand() * list.length)]!;

  /** `SAMPLES` requests one at a time; the path chosen per request. */
  async function timed(path: () => string) {
    const samples: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      const url = `${base}${path()}`;
      const started = performance.now();
      const response = await fetch(url, { headers: headers() });
      await response.arrayBuffer();
      if (!response.ok) throw new Error(`${url} answered ${response.status}`);
      samples.push(performance.now() - started);
    }
    return percentiles(samples);
  }
  // Warm both paths (statement caches, page cache) before the first measured round.
  for (let i = 0; i < 50; i++) {
    await fetch(`${base}/api/v1/onboardings/${pick(seeded.onboardingIds)}/phase_durations`, { headers: headers() }).then((r) => r.arrayBuffer());
    await fetch(`${base}/api/v1/onboardings/${pick(seeded.onboardingIds)}`, { headers: headers() }).then((r) => r.arrayBuffer());
  }
  await fetch(`${base}/api/v1/reports/phase_durations`, { headers: headers() }).then((r) => r.arrayBuffer());

  const month = (m: number, day = 1) => new Date(Date.UTC(2025, 11 + m, day)).toISOString().replace(".000Z", "Z");
  const shapes = [
    { name: "all time", path: () => "/api/v1/reports/phase_durations" },
    { name: "a quarter, ends mid-month", path: () => `/api/v1/reports/phase_durations?from=${month(3, 15)}&to=${month(6, 15)}` },
    { name: "one customer", path: () => `/api/v1/reports/phase_durations?customer_id=${pick(seeded.customers)}` },
  ];
  type P = { p50: number; p99: number };
  const results: { durations: P[]; read: P[]; page: P[]; report: Record<string, P[]> } = { durations: [], read: [], page: [], report: {} };
  for (let round = 1; round <= ROUNDS; round++) {
    results.read.push(await timed(() => `/api/v1/onboardings/${pick(seeded.onboardingIds)}`));
    results.durations.push(await timed(() => `/api/v1/onboardings/${pick(seeded.onboardingIds)}/phase_durations`));
    results.page.push(await timed(() => "/api/v1/onboardings?limit=100"));
    for (const shape of shapes) (results.report[shape.name] ??= []).push(await timed(shape.path));
    log(`round ${round}/${ROUNDS} done`);
  }
  const med = (list: P[], k: keyof P) => [...list.map((p) => p[k])].sort((a, b) => a - b)[list.length >> 1]!;
  const row = (name: string, list: P[], baseline: P[]) =>
    `| ${name} | ${med(list, "p50").toFixed(2)} ms | ${med(list, "p99").toFixed(2)} ms | ${(med(list, "p50") / med(baseline, "p50")).toFixed(2)}× |`;

  log(`\n${ONBOARDINGS.toLocaleString()} onboardings, ${seeded.written.toLocaleString()} transitions, ${engine}; ${SAMPLES} sequential requests per run, median of ${ROUNDS} rounds`);
  log("\n| request | p50 | p99 | p50 / baseline's |\n|---|---|---|---|");
  log(row("baseline: GET /onboardings/{id}", results.read, results.read));
  log(row("GET /onboardings/{id}/phase_durations", results.durations, results.read));
  log(row("baseline: GET /onboardings?limit=100", results.page, results.page));
  for (const shape of shapes) log(row(`GET /reports/phase_durations, ${shape.name}`, results.report[shape.name]!, results.page));
  const worst = shapes.map((s) => results.report[s.name]!).sort((a, b) => med(b, "p50") - med(a, "p50"))[0]!;
  console.log(
    JSON.stringify({
      durations: { p50: med(results.durations, "p50"), p99: med(results.durations, "p99") },
      read: { p50: med(results.read, "p50") },
      report: { p50: med(worst, "p50"), p99: med(worst, "p99") },
      page: { p50: med(results.page, "p50") },
    }),
  );
} finally {
  if (api) await stop(api);
  await postgres?.drop();
  await redis.stop();
  rmSync(dir, { recursive: true, force: true });
}
