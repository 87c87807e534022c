/**
 * `npm run bench [-- <scenario>…] [-- --quick]`: the real service (API + worker + a private
 * Redis, fresh SQLite) against a bare Bun.serve + bun:sqlite baseline, driven alike by
 * autocannon on 127.0.0.1, A B A B…, every run bounded. Prints req/s, p50, p99 and the
 * service/baseline ratio pair by pair; a full run rewrites bench/RESULTS.md.
 * --quick (CI): one short round per scenario and small data, only to prove the harness.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { openDatabase } from "../shared/db/client.ts";
import { PHASES, type Phase } from "../shared/domain.ts";
import { newId } from "../shared/ids.ts";
import { freePort, startPrivateRedis } from "../scripts/private-redis.ts";
import { startSlackStandIn } from "../test/support/slack-stand-in.ts";
import { measureLatency, runLoad, runSteady, type LoadRequest, type LoadResult } from "./lib/load.ts";
import { runWrk } from "./lib/wrk.ts";
import { cpuSeconds, postgresCpuSeconds, residentMb, startBun, stop, waitForHttp } from "./lib/processes.ts";
import { benchPostgresServer, seedPostgres } from "./lib/postgres.ts";
import { withRuntimeEnv } from "../shared/runtime-env.ts";
import { seedOnboardings, seedWorkspaces, type SeededKey } from "./lib/seed.ts";

const rawArgs = process.argv.slice(2);
// --db postgres (or --db=postgres): the same HTTP scenarios with the API and the worker on
// PostgreSQL, against a bare Bun.serve + Bun.sql baseline; results go to their own section.
const dbAt = rawArgs.indexOf("--db");
const engine = (dbAt >= 0 ? rawArgs[dbAt + 1] : rawArgs.find((a) => a.startsWith("--db="))?.slice(5)) ?? "sqlite";
if (engine !== "sqlite" && engine !== "postgres") throw new Error(`--db must be sqlite or postgres (got '${engine}')`);
const args = rawArgs.filter((a, i) => !(dbAt >= 0 && (i === dbAt || i === dbAt + 1)) && !a.startsWith("--db="));
const onPostgres = engine === "postgres";
const quick = args.includes("--quick");
// --service-only: no baseline runs, so a profile of the API (BENCH_CPU_PROF) shows load, not idling.
const serviceOnly = args.includes("--service-only");
// --wrk: the HTTP scenarios' load comes from wrk, a C load generator in a process of its own,
// instead of autocannon in this one (which competes with the servers for the two cores).
const useWrk = args.includes("--wrk");
// inOrder: requests to one record must arrive in the order made (phaseChanges, below). autocannon
// sends them so; wrk's two threads replay the same list side by side, so one thread sends them.
const load = (baseUrl: string, make: (n: number) => LoadRequest, seconds: number, inOrder = false) =>
  useWrk ? runWrk(baseUrl, make, seconds, 32, inOrder ? 1 : 2) : runLoad(baseUrl, make, seconds);
const ALL = ["create", "read", "list", "patch", "read-tail", "prune", "list-scale", "worker-activity", "worker-outbound", "redis-outage", "redis-memory", "growth", "feed", "webhooks", "phase-durations", "report", "one-workspace"] as const;
type Scenario = (typeof ALL)[number];
const chosen = (args.filter((a) => !a.startsWith("--")) as Scenario[]);
for (const s of chosen) if (!ALL.includes(s)) throw new Error(`unknown scenario '${s}'; choose from ${ALL.join(", ")}`);
// The other scenarios read the service's SQLite file directly (worker drains, the 1M-row list).
const HTTP_SCENARIOS: Scenario[] = ["create", "read", "list", "patch", "read-tail"];
// growth runs the app in a process of its own on either engine (bench/growth.ts --db).
const POSTGRES_SCENARIOS: Scenario[] = [...HTTP_SCENARIOS, "one-workspace", "prune", "growth", "feed", "webhooks", "phase-durations", "report"];
// Several API processes on one database is PostgreSQL's case (a SQLite file has one writer).
const POSTGRES_ONLY: Scenario[] = ["one-workspace"];
if (onPostgres && chosen.some((s) => !POSTGRES_SCENARIOS.includes(s))) throw new Error(`--db postgres runs ${POSTGRES_SCENARIOS.join(", ")}`);
if (!onPostgres && chosen.some((s) => POSTGRES_ONLY.includes(s))) throw new Error(`${POSTGRES_ONLY.join(", ")} runs with --db postgres only`);
const scenarios: Scenario[] = chosen.length ? chosen : onPostgres ? POSTGRES_SCENARIOS : ALL.filter((s) => !POSTGRES_ONLY.includes(s));

// Paid keys allow 600 requests a minute each. A scenario drives the service for its rounds and
// warm-up (26 s in the full run), and on a fast machine the read runs at 35,000 a second: with
// 1,000 keys the list after it was answered 429 for most of its requests (2026-11-27), and a
// ratio of refusals measures nothing. 3,000 keys allow 30,000 a second for a whole minute; a
// scenario whose service answered anything but 2xx is marked invalid in the summary regardless.
const S = quick
  ? { seconds: 1, rounds: 1, orgs: 10, keysPerOrg: 300, perOrg: 200, big: 20_000, small: 1_000, latencyCount: 200, activity: 5_000, outbound: 500 }
  : { seconds: 8, rounds: 3, orgs: 10, keysPerOrg: 300, perOrg: 200, big: 1_000_000, small: 1_000, latencyCount: 2_000, activity: 100_000, outbound: 10_000 };
/** Issue #26's line for the read's p99 on this engine (the read scenario's and the steady read's). */
const READ_P99_LINE_MS = onPostgres ? 10 : 5;
/** Expired activity entries per round of the `prune` scenario (what `retention run` deletes beside the load). */
const PRUNE_ROWS = quick ? 20_000 : 400_000;
// --seconds=N / --rounds=N / --rate=N (read-tail's rate, when `read` does not run first):
// for profiling sessions (results are not written). --warm=N: seconds of untimed load on each
// server before a scenario's rounds (default 2; see the warm-up below).
let tailRate: number | undefined;
let warmOption: number | undefined;
for (const arg of args) {
  const [flag, value] = arg.split("=");
  if (flag === "--seconds") S.seconds = Math.min(10, Number(value));
  if (flag === "--rounds") S.rounds = Number(value);
  if (flag === "--rate") tailRate = Number(value);
  if (flag === "--warm") warmOption = Number(value);
}

const log = (line: string) => console.log(line);
const dir = mkdtempSync(join(tmpdir(), "onboarding-bench-"));
const lines: string[] = [];
const record = (line: string) => {
  lines.push(line);
  log(line);
};

// ---- infrastructure: private Redis, seeded databases, both servers ----------------------
// `let`: the redis-outage scenario stops it and starts an empty one on the same port.
let redis = await startPrivateRedis();
process.on("exit", () => {
  try {
    process.kill(redis.pid, "SIGKILL");
  } catch {
    // already stopped
  }
});
const prefix = "bench";
const servicePath = join(dir, "service.sqlite");
const baselinePath = join(dir, "baseline.sqlite");
if (onPostgres) S.big = 0; // only the HTTP scenarios run: no million-row workspace to copy
log(`seeding (${S.orgs} workspaces × ${S.keysPerOrg} paid keys, ${S.perOrg} onboardings each; ${S.big.toLocaleString()} in the large workspace)…`);
const serviceDb = openDatabase(servicePath);
const keys = seedWorkspaces(serviceDb, { orgs: S.orgs, keysPerOrg: S.keysPerOrg, onboardings: S.perOrg });
// 20 keys each: the sequential latency runs stay far below every key's rate limit.
const smallKeys = seedWorkspaces(serviceDb, { orgs: 1, keysPerOrg: 20, onboardings: S.small, prefix: "small" });
const largeKeys = seedWorkspaces(serviceDb, { orgs: 1, keysPerOrg: 20, onboardings: 0, prefix: "large" });
const large = largeKeys[0]!;
const seedStarted = performance.now();
seedOnboardings(serviceDb, large.orgId, large.customerId, S.big);
log(`  ${S.big.toLocaleString()} onboardings in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);
const baselineDb = openDatabase(baselinePath);
const baselineKeys = seedWorkspaces(baselineDb, { orgs: S.orgs, keysPerOrg: 1, onboardings: S.perOrg });

// PostgreSQL: the same seeded rows, copied into two fresh databases (service and baseline).
const pg = onPostgres ? await seedPostgres({ service: serviceDb, baseline: baselineDb }) : null;
baselineDb.$client.close();


const slack = await startSlackStandIn({ token: "xoxb-bench" });
const servicePort = await freePort();
const baselinePort = await freePort();
const env = {
  PORT: String(servicePort),
  DATABASE_URL: pg ? pg.serviceUrl : `file:${servicePath}`,
  REDIS_URL: redis.url,
  QUEUE_PREFIX: prefix,
  LOG_LEVEL: "warn",
  DATA_DIR: dir,
  SLACK_API_URL: slack.url,
  SLACK_BOT_TOKEN: slack.token,
  WORKER_CONCURRENCY_OUTBOUND: "32",
  SECRET_KEY: "b".repeat(40),
  ADMIN_TOKEN: "bench-admin-token-0123",
};
// BENCH_CPU_PROF=<dir>: profile the API process (summarise with bench/profile-summary.ts).
const api = startBun("api/main.ts", env, process.env.BENCH_CPU_PROF);
const worker = startBun("worker/main.ts", env);
const baseline = pg
  ? startBun("bench/baseline-postgres-server.ts", { BASELINE_DB: pg.baselineUrl, PORT: String(baselinePort) })
  : startBun("bench/baseline-server.ts", { BASELINE_DB: baselinePath, PORT: String(baselinePort) });
const serviceUrl = `http://127.0.0.1:${servicePort}`;
const baselineUrl = `http://127.0.0.1:${baselinePort}`;
await waitForHttp(`${serviceUrl}/api/v1/health`);
await waitForHttp(`${baselineUrl}/api/v1/onboardings/none`);

// ---- HTTP scenarios ----------------------------------------------------------------------
const json = { "content-type": "application/json" };
const auth = (k: SeededKey) => ({ authorization: `Bearer ${k.key}` });
const pick = <T>(list: T[], n: number) => list[n % list.length]!;
let runId = 0;

type Maker = (n: number) => LoadRequest;
/** PATCH visits made by the rounds so far (phaseChanges). */
let patchVisits = 0;

/**
 * PATCH requests that each really change a phase. They visit every seeded onboarding in turn;
 * request n is the floor(n / onboardings)-th visit to its onboarding and sets the phase by that
 * visit's parity, so the visits to one onboarding alternate between two phases. A PATCH that
 * sets the phase an onboarding already has changes nothing and costs about a read: the maker
 * before this one sent one phase a round, so all but an onboarding's first visit of a round
 * were such (bench/RESULTS.md, #26's tenth pass). The visits to one onboarding must arrive in
 * order (`inOrder`), and a run that starts where another stopped goes on with its visit count
 * (the PATCH rounds: `patchVisits`); the requests still out when a run ends are the few that
 * can find their phase already set. `phases` are the two it alternates between: entering
 * `launch` (with the seeded live keys) queues the launch automations, two outbox rows and their
 * jobs; other phases queue nothing (a change writes its records in its own transaction).
 */
function phaseChanges(phases: readonly [Phase, Phase] = ["program_buildout", "review"]): Maker {
  // Every onboarding of every workspace once (the seeded keys come workspace by workspace in
  // turn, each carrying its workspace's onboardings), each visit made with one of its keys.
  const keysOf = new Map<string, SeededKey[]>();
  for (const k of keys) keysOf.set(k.orgId, [...(keysOf.get(k.orgId) ?? []), k]);
  const targets = [...keysOf.values()].flatMap(([k]) => k!.onboardingIds.map((id) => ({ id, org: k!.orgId })));
  return (n) => {
    const target = pick(targets, n);
    const phase = phases[Math.floor(n / targets.length) % 2];
    return { method: "PATCH", path: `/api/v1/onboardings/${target.id}`, headers: { ...json, ...auth(pick(keysOf.get(target.org)!, n)) }, body: JSON.stringify({ phase }) };
  };
}
const phaseChange = phaseChanges();
const makers: Record<"create" | "read" | "list" | "patch", { service: () => Maker; baseline: () => Maker; target: number; note: string; inOrder?: boolean }> = {
  create: {
    note: "POST /api/v1/onboardings (auth, limits, validation, Idempotency-Key, activity)",
    target: 0.5,
    service: () => {
      const run = ++runId;
      return (n) => {
        const k = pick(keys, n);
        return { method: "POST", path: "/api/v1/onboardings", headers: { ...json, ...auth(k), "idempotency-key": `bench-${run}-${n}` }, body: JSON.stringify({ customer_id: k.customerId }) };
      };
    },
    baseline: () => (n) => ({ method: "POST", path: "/api/v1/onboardings", headers: json, body: JSON.stringify({ customer_id: pick(baselineKeys, n).customerId }) }),
  },
  read: {
    note: "GET /api/v1/onboardings/{id}",
    target: 0.6,
    service: () => (n) => {
      const k = pick(keys, n);
      return { method: "GET", path: `/api/v1/onboardings/${pick(k.onboardingIds, n >> 3)}`, headers: auth(k) };
    },
    baseline: () => (n) => ({ method: "GET", path: `/api/v1/onboardings/${pick(pick(baselineKeys, n).onboardingIds, n >> 3)}`, headers: {} }),
  },
  list: {
    note: "GET /api/v1/onboardings?phase=review&limit=20",
    target: 0.5,
    service: () => (n) => ({ method: "GET", path: "/api/v1/onboardings?phase=review&limit=20", headers: auth(pick(keys, n)) }),
    baseline: () => (n) => ({ method: "GET", path: `/api/v1/onboardings?phase=review&limit=20&org=${pick(baselineKeys, n).orgId}`, headers: {} }),
  },
  patch: {
    note: "PATCH phase change (its transition, the timeline's entry, and its events in the change's transaction); baseline: a bare UPDATE",
    // Issue #26: a PATCH at half the bare server's rate on PostgreSQL, a third on SQLite.
    target: onPostgres ? 0.5 : 0.35,
    // Each round goes on from where the last one stopped, so its first visits change phases too.
    service: () => {
      const from = patchVisits;
      return (n) => phaseChange(from + n);
    },
    inOrder: true,
    baseline: () => (n) => ({ method: "PATCH", path: `/api/v1/onboardings/${pick(pick(baselineKeys, n).onboardingIds, n)}`, headers: json, body: JSON.stringify({ phase: PHASES[n % 7] }) }),
  },
};

const ms = (v: number) => `${v.toFixed(v < 10 ? 2 : 1)} ms`;
const fmt = (r: LoadResult) => `${Math.round(r.rps).toString().padStart(6)} req/s  p50 ${ms(r.p50).padStart(8)}  p99 ${ms(r.p99).padStart(8)}`;
const problems = (r: LoadResult) => (r.non2xx || r.errors ? `  (non-2xx ${r.non2xx}: ${JSON.stringify(r.statuses)}, errors ${r.errors})` : "");
/**
 * A load run with the CPU time (user + system, from /proc) each of `pids` and this process (the
 * load generator) spent in it, in µs per answered request. On two shared cores these say where
 * the machine's time went, which throughput alone does not: a ratio compares whole machines.
 */
async function measured(load: () => Promise<LoadResult>, pids: number[]): Promise<LoadResult & { cpuMicros: number[]; loadCpuMicros: number; postgresCpuMicros: number }> {
  const before = pids.map(cpuSeconds);
  const postgresBefore = onPostgres ? postgresCpuSeconds() : 0;
  const ownBefore = process.cpuUsage();
  const result: LoadResult & { loadCpuSeconds?: number } = await load();
  const own = process.cpuUsage(ownBefore);
  const requests = Math.max(1, result.requests);
  return {
    ...result,
    cpuMicros: pids.map((pid, i) => ((cpuSeconds(pid) - before[i]!) * 1e6) / requests),
    loadCpuMicros: result.loadCpuSeconds !== undefined ? (result.loadCpuSeconds * 1e6) / requests : (own.user + own.system) / requests,
    postgresCpuMicros: onPostgres ? ((postgresCpuSeconds() - postgresBefore) * 1e6) / requests : 0,
  };
}
const µs = (v: number) => v.toFixed(1);
const cpuLine = (a: Awaited<ReturnType<typeof measured>>, b?: Awaited<ReturnType<typeof measured>>) =>
  `µs per request: API ${µs(a.cpuMicros[0]!)}, worker ${µs(a.cpuMicros[1]!)}, Redis ${µs(a.cpuMicros[2]!)}${onPostgres ? `, PostgreSQL ${µs(a.postgresCpuMicros)}` : ""}, load generator ${µs(a.loadCpuMicros)}` +
  (b ? `; bare server ${µs(b.cpuMicros[0]!)}${onPostgres ? `, PostgreSQL ${µs(b.postgresCpuMicros)}` : ""}, load generator ${µs(b.loadCpuMicros)}` : "");
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
/** One statement on the service's database, on either engine: the bench's own reads and seeds, beside the API. */
async function onService<R>(text: string): Promise<R[]> {
  if (!pg) return serviceDb.$client.query(text).all() as R[];
  const client = new SQL({ url: pg.serviceUrl, max: 1 });
  try {
    return (await client.unsafe(text)) as R[];
  } finally {
    await client.close();
  }
}
/** Rows of a table in the service's database: what a round's requests really wrote. */
const serviceRows = async (table: string) => Number((await onService<{ n: unknown }>(`SELECT count(*) AS n FROM ${table}`))[0]!.n);
const summary: string[] = [];
/** The service's median read throughput, when `read` ran: `read-tail` drives half of it. */
let readRate: number | undefined;

for (const name of scenarios.filter((s): s is keyof typeof makers => s in makers)) {
  const m = makers[name];
  record(`\n### ${name}: ${m.note}`);
  const ratios: number[] = [];
  const serviceRates: number[] = [];
  const serviceP99s: number[] = [];
  const baselineP99s: number[] = [];
  const apiCpu: number[] = [];
  const baselineCpu: number[] = [];
  /** The service's answers in the timed rounds that were not 2xx, or failed: any makes the scenario's ratio meaningless. */
  let refused = 0;
  // Untimed, on both servers: the first round measured the JIT's warm-up of the service's paths
  // (a PATCH round 1 ran at 0.21-0.27 of the bare server where the rounds after it ran at 0.29-0.37).
  const warmSeconds = warmOption ?? Math.min(2, S.seconds);
  const warm = await load(serviceUrl, m.service(), warmSeconds, m.inOrder);
  if (name === "patch") patchVisits += warm.requests;
  if (!serviceOnly) await load(baselineUrl, m.baseline(), warmSeconds, m.inOrder);
  for (let round = 1; round <= S.rounds; round++) {
    // A PATCH round says how many of its requests changed a phase: one phase transition each, in
    // the request's transaction (also the customer's timeline entry since #26's nineteenth pass).
    const transitionsBefore = name === "patch" ? await serviceRows("phase_transitions") : 0;
    const a = await measured(() => load(serviceUrl, m.service(), S.seconds, m.inOrder), [api.pid, worker.pid, redis.pid]);
    const changed =
      name === "patch"
        ? `  (phases changed: ${(await serviceRows("phase_transitions")) - transitionsBefore} of ${a.requests})`
        : "";
    if (name === "patch") patchVisits += a.requests;
    refused += a.non2xx + a.errors;
    if (serviceOnly) {
      record(`round ${round}  service  ${fmt(a)}${problems(a)}${changed}`);
      record(`round ${round}  cpu      ${cpuLine(a)}`);
      continue;
    }
    const b = await measured(() => load(baselineUrl, m.baseline(), S.seconds, m.inOrder), [baseline.pid]);
    ratios.push(a.rps / b.rps);
    serviceRates.push(a.rps);
    serviceP99s.push(a.p99);
    baselineP99s.push(b.p99);
    apiCpu.push(a.cpuMicros[0]!);
    baselineCpu.push(b.cpuMicros[0]!);
    record(`round ${round}  service  ${fmt(a)}${problems(a)}${changed}`);
    record(`round ${round}  baseline ${fmt(b)}${problems(b)}`);
    record(`round ${round}  ratio    ${(a.rps / b.rps).toFixed(2)}`);
    record(`round ${round}  cpu      ${cpuLine(a, b)}`);
  }
  if (serviceOnly) continue;
  const r = median(ratios);
  const verdict = refused > 0 ? `invalid: ${refused.toLocaleString()} answers not 2xx` : r >= m.target ? "met" : "missed";
  summary.push(`| ${name} | ${r.toFixed(2)} × baseline | ≥ ${m.target} | ${verdict} |`);
  summary.push(`| ${name}: CPU per request, API process / bare server | ${median(apiCpu).toFixed(1)} / ${median(baselineCpu).toFixed(1)} µs | (accounting) | |`);
  if (name === "read") {
    readRate = median(serviceRates);
    const p99 = median(serviceP99s);
    const p99Verdict = refused > 0 ? "invalid (see above)" : p99 <= READ_P99_LINE_MS ? "met" : "missed";
    summary.push(`| read p99, 32 connections at full speed | ${ms(p99)} (baseline ${ms(median(baselineP99s))}) | ≤ ${READ_P99_LINE_MS} ms | ${p99Verdict} |`);
  }
}

// ---- creates into one workspace from two API processes ------------------------------------
// A workspace's creates queue on its display-id sequence row and its feed positions, held to
// the commit; adding API processes raises a busy workspace's write rate only if that queue is
// short. Two API processes on one database, 16 connections each, keyed creates: first spread
// over the ten workspaces, then all into one, alternated.
if (scenarios.includes("one-workspace")) {
  const secondPort = await freePort();
  const second = startBun("api/main.ts", { ...env, PORT: String(secondPort) });
  const secondUrl = `http://127.0.0.1:${secondPort}`;
  await waitForHttp(`${secondUrl}/api/v1/health`);
  const oneWorkspace = keys.filter((k) => k.orgId === keys[0]!.orgId);
  const creates = (list: SeededKey[], side: string): Maker => {
    const run = ++runId;
    return (n) => {
      const k = pick(list, n);
      return { method: "POST", path: "/api/v1/onboardings", headers: { ...json, ...auth(k), "idempotency-key": `bench-one-${run}-${side}-${n}` }, body: JSON.stringify({ customer_id: k.customerId }) };
    };
  };
  const both = async (list: SeededKey[]) => {
    const [a, b] = await Promise.all([runLoad(serviceUrl, creates(list, "a"), S.seconds, 16), runLoad(secondUrl, creates(list, "b"), S.seconds, 16)]);
    return { rps: a.rps + b.rps, p99: Math.max(a.p99, b.p99), problems: problems(a) + problems(b) };
  };
  record(`\n### one-workspace: keyed creates from two API processes (16 connections each), into ten workspaces, then into one`);
  const ratios: number[] = [];
  for (let round = 1; round <= S.rounds; round++) {
    const ten = await both(keys);
    const one = await both(oneWorkspace);
    ratios.push(one.rps / ten.rps);
    record(`round ${round}  ten workspaces ${Math.round(ten.rps).toString().padStart(6)} req/s  p99 ${ms(ten.p99).padStart(8)}${ten.problems}`);
    record(`round ${round}  one workspace  ${Math.round(one.rps).toString().padStart(6)} req/s  p99 ${ms(one.p99).padStart(8)}${one.problems}`);
    record(`round ${round}  ratio    ${(one.rps / ten.rps).toFixed(2)}`);
  }
  const r = median(ratios);
  summary.push(`| creates into one workspace from two API processes, against ten workspaces | ${r.toFixed(2)} × | ≥ 0.5 | ${r >= 0.5 ? "met" : "missed"} |`);
  await stop(second);
}

// ---- the read's tail at a steady rate ------------------------------------------------------
// At full speed 32 connections keep 32 requests queued, so p99 mostly measures throughput
// (mean latency = 32 / rate). Here both servers get the same steady rate, half of what the
// service sustained in `read`, and p99 shows what a request meets beyond its own work.
if (scenarios.includes("read-tail")) {
  const rate = tailRate ?? Math.round((readRate ?? (onPostgres ? 2_000 : 8_000)) / 2);
  record(`\n### read-tail: GET /api/v1/onboardings/{id} at a steady ${rate.toLocaleString()} req/s (open loop)`);
  const serviceP99: number[] = [];
  const baselineP99: number[] = [];
  // Untimed first: new connections and code not yet compiled belong to a start, not to a tail.
  await runSteady(serviceUrl, makers.read.service(), 1, rate);
  if (!serviceOnly) await runSteady(baselineUrl, makers.read.baseline(), 1, rate);
  for (let round = 1; round <= S.rounds; round++) {
    const a = await runSteady(serviceUrl, makers.read.service(), S.seconds, rate);
    record(`round ${round}  service  ${fmt(a)}${problems(a)}`);
    serviceP99.push(a.p99);
    if (serviceOnly) continue;
    const b = await runSteady(baselineUrl, makers.read.baseline(), S.seconds, rate);
    record(`round ${round}  baseline ${fmt(b)}${problems(b)}`);
    baselineP99.push(b.p99);
  }
  if (!serviceOnly) {
    const p99 = median(serviceP99);
    summary.push(`| read p99 at a steady ${rate.toLocaleString()} req/s | ${ms(p99)} (baseline ${ms(median(baselineP99))}) | ≤ ${READ_P99_LINE_MS} ms | ${p99 <= READ_P99_LINE_MS ? "met" : "missed"} |`);
  }
}

// ---- the read's tail while pruning runs ----------------------------------------------------
// The same steady read load as read-tail, alternated: alone, then beside `npm run admin --
// retention run` deleting PRUNE_ROWS expired activity entries (seeded a year old before each
// round) in its 500-row slices. The pruning's cost to others is the difference in p99.
if (scenarios.includes("prune")) {
  const rate = tailRate ?? Math.round((readRate ?? (onPostgres ? 2_000 : 8_000)) / 2);
  record(`\n### prune: read p99 at a steady ${rate.toLocaleString()} req/s, alone and while \`retention run\` prunes ${PRUNE_ROWS.toLocaleString()} expired activity entries`);
  const yearAgoMicros = (Date.now() - 366 * 86_400_000) * 1000;
  // One statement on both engines: a recursive counter makes the rows, all older than the window.
  const seed = async (round: number) => {
    const text = `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${PRUNE_ROWS})
      INSERT INTO activity_entries (request_id, org_id, key_id, actor, method, route, status, address, duration_ms, at, repeat_count)
      SELECT 'req_expired_${round}_' || CAST(i AS TEXT), '${keys[0]!.orgId}', 'key_expired', 'api_key', 'GET', '/api/v1/onboardings/:id', 200, '127.0.0.1', 1.0, ${yearAgoMicros} + i, 1 FROM n`;
    await onService(text);
  };
  const alone: number[] = [];
  const pruning: number[] = [];
  await runSteady(serviceUrl, makers.read.service(), 1, rate); // warm, untimed
  for (let round = 1; round <= S.rounds; round++) {
    const a = await runSteady(serviceUrl, makers.read.service(), S.seconds, rate);
    record(`round ${round}  alone    ${fmt(a)}${problems(a)}`);
    alone.push(a.p99);
    await seed(round);
    const started = performance.now();
    const prune = Bun.spawn([process.execPath, "admin/cli.ts", "retention", "run", "--json"], { env: { ...process.env, ...env }, stdout: "pipe", stderr: "inherit" });
    const b = await runSteady(serviceUrl, makers.read.service(), S.seconds, rate);
    const report = JSON.parse(await new Response(prune.stdout).text()) as { total: number };
    if ((await prune.exited) !== 0) throw new Error("retention run failed");
    const took = (performance.now() - started) / 1000;
    record(`round ${round}  pruning  ${fmt(b)}${problems(b)}  (${report.total.toLocaleString()} rows pruned in ${took.toFixed(1)} s, the load ran ${S.seconds} s)`);
    pruning.push(b.p99);
  }
  summary.push(`| read p99 at ${rate.toLocaleString()} req/s while pruning / alone | ${ms(median(pruning))} / ${ms(median(alone))} | (recorded) | |`);
}

// ---- list cost with 1,000,000 rows vs 1,000 ------------------------------------------------
if (scenarios.includes("list-scale")) {
  record(`\n### list-scale: GET /api/v1/onboardings?phase=review&limit=20, p50 of ${S.latencyCount} sequential requests`);
  const path = `${serviceUrl}/api/v1/onboardings?phase=review&limit=20`;
  const few = await measureLatency(path, (i) => auth(pick(smallKeys, i)), S.latencyCount);
  const many = await measureLatency(path, (i) => auth(pick(largeKeys, i)), S.latencyCount);
  const again = await measureLatency(path, (i) => auth(pick(smallKeys, i)), S.latencyCount);
  const smallP50 = Math.min(few.p50, again.p50);
  record(`${S.small.toLocaleString()} rows: p50 ${ms(smallP50)} p99 ${ms(Math.min(few.p99, again.p99))}`);
  record(`${S.big.toLocaleString()} rows: p50 ${ms(many.p50)} p99 ${ms(many.p99)}`);
  const ratio = many.p50 / smallP50;
  record(`ratio ${ratio.toFixed(2)}`);
  summary.push(`| list p50, ${S.big.toLocaleString()} vs ${S.small.toLocaleString()} rows | ${ratio.toFixed(2)}× | ≤ 1.5× | ${ratio <= 1.5 ? "met" : "missed"} |`);
  const rss = residentMb(api.pid);
  record(`API resident memory after the ${S.big.toLocaleString()}-row scenario: ${rss} MB`);
  summary.push(`| API resident memory after it | ${rss} MB | ≤ 250 MB | ${rss <= 250 ? "met" : "missed"} |`);
}

// ---- worker throughput -----------------------------------------------------------------
const connection = new Redis(redis.url, { maxRetriesPerRequest: null });
const queues = { records: new Queue("records", { connection, prefix }), outbound: new Queue("outbound", { connection, prefix }) };
const count = (sql: string) => (serviceDb.$client.query(sql).get() as { n: number }).n;
async function drained(check: () => boolean, what: string, timeoutMs = 300_000): Promise<number> {
  const started = performance.now();
  while (!check()) {
    if (performance.now() - started > timeoutMs) throw new Error(`${what} did not finish in ${timeoutMs / 1000} s`);
    await Bun.sleep(5);
  }
  return (performance.now() - started) / 1000;
}
/** Both queues have nothing waiting or running (the reminder scheduler's next run stays delayed). */
async function idle() {
  for (;;) {
    const counts = await Promise.all(Object.values(queues).map((q) => q.getJobCounts("waiting", "active", "prioritized")));
    if (counts.every((c) => Object.values(c).every((n) => n === 0))) return;
    await Bun.sleep(100);
  }
}

if (scenarios.includes("worker-activity")) {
  record(`\n### worker-activity: ${S.activity.toLocaleString()} activity entries in batches of 500 (outbox rows, jobs carrying their ids), drained by one worker process`);
  await idle();
  const before = count("SELECT count(*) AS n FROM activity_entries");
  const batches = Array.from({ length: S.activity / 500 }, (_, b) => ({
    entries: Array.from({ length: 500 }, (_, i) => ({
      request_id: `req_bench_${b}_${i}_${newId("req")}`, org_id: keys[0]!.orgId, key_id: "key_bench", actor: "bench", method: "GET",
      route: "/api/v1/me", status: 200, address: "127.0.0.1", duration_ms: 0.5, at: Date.now() * 1000,
    })),
  }));
  // As the API hands them over: each batch in an outbox row (marked relayed, so the API's own
  // relay leaves it), its job carrying only the row's id; the worker reads the entries from the row.
  const insertRow = serviceDb.$client.prepare("INSERT INTO outbox (org_id, queue, name, payload, created_at, relayed_at) VALUES (NULL, 'records', 'activity.batch', ?, ?, ?) RETURNING id");
  const rowIds = batches.map((batch) => (insertRow.get(JSON.stringify(batch), Date.now() * 1000, Date.now() * 1000) as { id: number }).id);
  const started = performance.now();
  await queues.records.addBulk(rowIds.map((id) => ({ name: "activity.batch", data: {}, opts: { jobId: `outbox-${id}` } })));
  await drained(() => count("SELECT count(*) AS n FROM activity_entries") - before >= S.activity, "activity entries");
  const seconds = (performance.now() - started) / 1000;
  const rate = S.activity / seconds;
  // Baseline: the same rows through one prepared INSERT, 500 per transaction, in this process.
  const scratch = openDatabase(join(dir, "scratch.sqlite"));
  const insert = scratch.$client.prepare(
    "INSERT INTO activity_entries (request_id, org_id, key_id, actor, method, route, status, address, duration_ms, at) VALUES (?,?,?,?,?,?,?,?,?,?)",
  );
  const t0 = performance.now();
  for (const batch of batches) scratch.$client.transaction(() => { for (const e of batch.entries) insert.run(e.request_id, e.org_id, e.key_id, e.actor, e.method, e.route, e.status, e.address, e.duration_ms, e.at); })();
  const baseRate = S.activity / ((performance.now() - t0) / 1000);
  scratch.$client.close();
  record(`worker ${Math.round(rate).toLocaleString()} entries/s (${seconds.toFixed(2)} s); baseline (bare inserts) ${Math.round(baseRate).toLocaleString()} entries/s; ratio ${(rate / baseRate).toFixed(2)}`);
  summary.push(`| worker: activity entries drained | ${Math.round(rate).toLocaleString()} entries/s | ≥ 20,000/s | ${rate >= 20_000 ? "met" : "missed"} |`);
}

if (scenarios.includes("worker-outbound")) {
  record(`\n### worker-outbound: ${S.outbound.toLocaleString()} launch DMs against the loopback Slack stand-in (WORKER_CONCURRENCY_OUTBOUND=32)`);
  await idle();
  const users = Array.from({ length: 50 }, (_, i) => ({ id: newId("usr"), slack: `UBENCH${i}` }));
  for (const u of users) {
    slack.addUser(u.slack);
    serviceDb.$client.run("INSERT INTO users (id, org_id, name, email, slack_user_id, created_at) VALUES (?, ?, 'Bench CSM', 'csm@bench.example', ?, 0)", [u.id, keys[0]!.orgId, u.slack]);
  }
  const before = count("SELECT count(*) AS n FROM deliveries WHERE status = 'sent'");
  const stamp = Date.now();
  const jobs = Array.from({ length: S.outbound }, (_, i) => ({
    name: "launch.slack_dm",
    data: { org_id: keys[0]!.orgId, onboarding_id: pick(keys[0]!.onboardingIds, i), customer_id: keys[0]!.customerId, csm_id: pick(users, i).id, actor: "bench", at: stamp * 1000 },
    opts: { jobId: `bench-dm-${stamp}-${i}` },
  }));
  const started = performance.now();
  for (let i = 0; i < jobs.length; i += 1000) await queues.outbound.addBulk(jobs.slice(i, i + 1000));
  await drained(() => count("SELECT count(*) AS n FROM deliveries WHERE status = 'sent'") - before >= S.outbound, "outbound jobs");
  const seconds = (performance.now() - started) / 1000;
  const rate = S.outbound / seconds;
  // Baseline: the same two Slack calls per DM from a bare loop, 32 at a time, no queue or database.
  const t0 = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: 32 }, async () => {
    while (next < S.outbound) {
      const i = next++;
      const headers = { authorization: `Bearer ${slack.token}`, "content-type": "application/json" };
      const open = (await (await fetch(`${slack.url}conversations.open`, { method: "POST", headers, body: JSON.stringify({ users: pick(users, i).slack }) })).json()) as { channel: { id: string } };
      await (await fetch(`${slack.url}chat.postMessage`, { method: "POST", headers, body: JSON.stringify({ channel: open.channel.id, text: "baseline" }) })).arrayBuffer();
    }
  }));
  const baseRate = S.outbound / ((performance.now() - t0) / 1000);
  record(`worker ${Math.round(rate).toLocaleString()} jobs/s (${seconds.toFixed(2)} s); baseline (bare HTTP calls) ${Math.round(baseRate).toLocaleString()} jobs/s; ratio ${(rate / baseRate).toFixed(2)}`);
  summary.push(`| worker: outbound jobs against the Slack stand-in | ${Math.round(rate).toLocaleString()} jobs/s | ≥ 1,000/s | ${rate >= 1000 ? "met" : "missed"} |`);
}

// ---- Redis: an outage under writes, and memory under sustained load ---------------------
if (scenarios.includes("redis-outage")) {
  record(`\n### redis-outage: PATCH phase changes, every other one into launch (its two launch automations: outbox rows and jobs), with Redis up, then with Redis stopped`);
  // One run of visits across the outage: every request really changes a phase, and every other one queues work for Redis.
  const changing = phaseChanges(["launch", "review"]);
  let visits = 0;
  const changingPhases: Maker = () => changing(visits++);
  const up = await runLoad(serviceUrl, changingPhases, S.seconds);
  await redis.stop();
  const down = await runLoad(serviceUrl, changingPhases, S.seconds);
  const backlog = count("SELECT count(*) AS n FROM outbox WHERE relayed_at IS NULL");
  redis = await startPrivateRedis({ port: redis.port });
  const drainSeconds = await drained(() => count("SELECT count(*) AS n FROM outbox WHERE relayed_at IS NULL") === 0, "the outbox backlog after the outage");
  const ratio = down.rps / up.rps;
  record(`Redis up      ${fmt(up)}${problems(up)}`);
  record(`Redis stopped ${fmt(down)}${problems(down)}`);
  record(`ratio ${ratio.toFixed(2)}; ${backlog.toLocaleString()} outbox rows waited, relayed ${drainSeconds.toFixed(1)} s after Redis returned`);
  summary.push(`| writes with Redis stopped, vs Redis up | ${ratio.toFixed(2)} × | ≥ 0.5 | ${ratio >= 0.5 ? "met" : "missed"} |`);
}

if (scenarios.includes("redis-memory")) {
  const seconds = quick ? 2 : 120;
  record(`\n### redis-memory: ${seconds} s of mixed load (reads and phase changes, worker running); Redis used_memory every ${quick ? 1 : 20} s`);
  await idle();
  const probe = new Redis(redis.url);
  const used = async () => Number(/^used_memory:(\d+)/m.exec(await probe.info("memory"))![1]) / 2 ** 20;
  const samples: string[] = [`0 s ${(await used()).toFixed(1)} MB`];
  let peak = 0;
  const patch = makers.patch.service(); // phase changes: their records in their own transactions, no job
  const read = makers.read.service();
  const sampler = setInterval(async () => {
    const mb = await used();
    peak = Math.max(peak, mb);
    samples.push(`${samples.length * (quick ? 1 : 20)} s ${mb.toFixed(1)} MB`);
  }, quick ? 1000 : 20_000);
  const load = await runLoad(serviceUrl, (n) => (n % 2 ? read(n) : patch(n)), seconds);
  clearInterval(sampler);
  await idle();
  const settled = await used();
  probe.disconnect();
  record(`${fmt(load)}${problems(load)}`);
  record(`used_memory: ${samples.join(", ")}; after the queues drained ${settled.toFixed(1)} MB`);
  // The peak under load is what a worker that falls behind leaves in Redis (jobs waiting); after
  // the drain, what stays for good.
  summary.push(`| Redis memory during ${seconds} s at ${Math.round(load.rps).toLocaleString()} req/s, and after the queues drained | peak ${peak.toFixed(1)} MB; ${settled.toFixed(1)} MB after | bounded | see samples |`);
}

if (scenarios.includes("growth")) {
  // What a call leaves in the database (bench/growth.ts: the app in its own process, over its own
  // database, so this run's other scenarios do not count): served and refused reads, creates.
  const count = quick ? 2_000 : 20_000;
  record(`\n### growth: bytes left in the database per call, ${count.toLocaleString()} served reads, ${count.toLocaleString()} reads of one key past its limit, ${(count / 10).toLocaleString()} keyed creates (bun bench/growth.ts --count=${count} --db ${engine})`);
  const child = Bun.spawn([process.execPath, "bench/growth.ts", `--count=${count}`, "--db", engine], { stdout: "pipe", stderr: "inherit" });
  const output = await new Response(child.stdout).text();
  if ((await child.exited) !== 0) throw new Error("bench/growth.ts failed");
  for (const line of output.trim().split("\n")) record(line);
  const served = Number(/^served: .* (\d+) bytes per call/m.exec(output)?.[1]);
  const refused = Number(/^refused: .* ([\d.]+) bytes per call/m.exec(output)?.[1]);
  // The issue's flood: nine refusals for every served call.
  const flood = (served + 9 * refused) / 10;
  const perCreate = Number(/^created: .* (\d+) bytes per create/m.exec(output)?.[1]);
  summary.push(`| growth: bytes per served / refused read, per create | ${served} / ${refused} / ${perCreate} | (recorded) | |`);
  summary.push(`| growth: bytes per call, a flood of 90% refusals | ${flood.toFixed(0)} | ≤ 120 | ${flood <= 120 ? "met" : "missed"} |`);
}

if (scenarios.includes("feed")) {
  // The change feed at size (bench/feed.ts: the app in its own process over its own database):
  // a page with 1,000 and with many events, and writes beside followers.
  const flags = quick ? ["--events=20000", "--seconds=1", "--rounds=1", "--samples=20"] : ["--events=10000000"];
  record(`\n### feed: the change feed's page cost at size and beside writers (bun bench/feed.ts ${flags.join(" ")} --db ${engine})`);
  const child = Bun.spawn([process.execPath, "bench/feed.ts", ...flags, "--db", engine], { stdout: "pipe", stderr: "inherit" });
  const output = await new Response(child.stdout).text();
  if ((await child.exited) !== 0) throw new Error("bench/feed.ts failed");
  for (const line of output.replaceAll("\r", "\n").split("\n")) if (line.trim() && !line.startsWith("{") && !/^ +[\d,]+ of /.test(line)) record(line);
  const worst = Math.max(...[...output.matchAll(/ratio ([\d.]+)$/gm)].slice(0, 6).map((m) => Number(m[1])));
  summary.push(`| feed: a page with many events / with 1,000, the worst of six pages | ${worst.toFixed(2)}× | ≤ 1.5× | ${worst <= 1.5 ? "met" : "missed"} |`);
}

if (scenarios.includes("webhooks")) {
  // Webhooks' cost (bench/webhooks.ts: API and worker processes of their own, a loopback
  // receiver): the API's write rate with 5 endpoints against none, and one worker's deliveries.
  const flags = quick ? ["--seconds=1", "--rounds=1"] : [];
  record(`\n### webhooks: writes with 5 endpoints against none, and one worker's deliveries (bun bench/webhooks.ts ${flags.join(" ")} --db ${engine})`);
  const child = Bun.spawn([process.execPath, "bench/webhooks.ts", ...flags, "--db", engine], { stdout: "pipe", stderr: "inherit" });
  const output = await new Response(child.stdout).text();
  if ((await child.exited) !== 0) throw new Error("bench/webhooks.ts failed");
  for (const line of output.split("\n")) if (line.trim() && !line.startsWith("{")) record(line);
  const result = JSON.parse(output.split("\n").find((line) => line.startsWith("{"))!) as { writeRatio: number; workerRate: number };
  summary.push(`| webhooks: creates with 5 endpoints / with none | ${result.writeRatio.toFixed(2)}× | (accounting) | |`);
  summary.push(`| webhooks: deliveries per second, one worker | ${Math.round(result.workerRate).toLocaleString()}/s | (accounting) | |`);
}

if (scenarios.includes("phase-durations") || scenarios.includes("report")) {
  // The SLA's reads in a large workspace (bench/phase-durations.ts: the API in its own process
  // over 100,000 onboardings and 1,000,000 transitions): one onboarding's durations and the report.
  const flags = quick ? ["--onboardings=2000", "--transitions=20000", "--samples=30", "--rounds=1"] : [];
  record(`\n### phase-durations and report: the SLA's reads in a large workspace (bun bench/phase-durations.ts ${flags.join(" ")} --db ${engine})`);
  const child = Bun.spawn([process.execPath, "bench/phase-durations.ts", ...flags, "--db", engine], { stdout: "pipe", stderr: "inherit" });
  const output = await new Response(child.stdout).text();
  if ((await child.exited) !== 0) throw new Error("bench/phase-durations.ts failed");
  for (const line of output.split("\n")) if (line.trim() && !line.startsWith("{") && !line.startsWith("round ")) record(line);
  const result = JSON.parse(output.split("\n").find((line) => line.startsWith("{"))!) as { durations: { p50: number; p99: number }; report: { p50: number; p99: number } };
  if (scenarios.includes("phase-durations")) {
    summary.push(`| phase-durations: one onboarding's answer, p50 (p99) | ${result.durations.p50.toFixed(2)} ms (${result.durations.p99.toFixed(2)} ms) | p50 ≤ 5 ms | ${result.durations.p50 <= 5 ? "met" : "missed"} |`);
  }
  if (scenarios.includes("report")) {
    summary.push(`| report: the slowest of three report shapes, p50 (p99) | ${result.report.p50.toFixed(2)} ms (${result.report.p99.toFixed(2)} ms) | p50 ≤ 200 ms | ${result.report.p50 <= 200 ? "met" : "missed"} |`);
  }
}

// ---- report ------------------------------------------------------------------------------
log("\n| scenario | result | target | |\n|---|---|---|---|");
for (const row of summary) log(row);

await Promise.all(Object.values(queues).map((q) => q.close()));
connection.disconnect();
await Promise.all([stop(api), stop(worker), stop(baseline)]);
slack.stop();
await redis.stop();
serviceDb.$client.close();
rmSync(dir, { recursive: true, force: true });
await pg?.dropAll();

// Allocator settings reach every process the run started (shared/runtime-env.ts's, and any in the
// environment, which win; bench/lib/processes.ts) and change what it measures (bench/RESULTS.md,
// #26's thirteenth and twentieth passes): a run written down says which.
const allocatorSettings = Object.entries(withRuntimeEnv(process.env)).filter(([name]) => name.startsWith("MIMALLOC_")).map(([name, value]) => `${name}=${value}`);
const settingsNote = allocatorSettings.length > 0 ? `; every process started with ${allocatorSettings.join(" ")}` : "";

if (onPostgres && !quick && !serviceOnly && chosen.length === 0 && !args.some((a) => a.includes("="))) {
  // Kept in the hand-written part of RESULTS.md (a SQLite run keeps it), replaced run by run.
  const START = "<!-- postgres: start -->";
  const END = "<!-- postgres: end -->";
  const MARKER = "<!-- analysis: kept across runs -->";
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${Math.round(totalmem() / 2 ** 30)} GiB, Bun ${Bun.version}, PostgreSQL at ${new URL(benchPostgresServer()).host}`;
  const section = `${START}\n## PostgreSQL\n\nCommand: \`npm run bench -- --db postgres\` (${S.rounds} rounds of ${S.seconds} s each, A = service on PostgreSQL, B = baseline, alternating).\nMachine: ${machine}. Date: ${new Date().toISOString().slice(0, 10)}.\nService: API + worker processes on one PostgreSQL database (pool of 10 per process), private redis-server${settingsNote}; the same seeded rows as the SQLite run, copied with \`db copy\`.\nBaseline: bench/baseline-postgres-server.ts, bare Bun.serve + Bun.sql (the same driver) on the same tables.\n\n| scenario | result |\n|---|---|\n${summary.map((row) => row.split("|").slice(0, 3).join("|") + "|").join("\n")}\n\n\`\`\`\n${lines.join("\n").trim()}\n\`\`\`\n${END}`;
  let text = existsSync("bench/RESULTS.md") ? readFileSync("bench/RESULTS.md", "utf8") : `# Benchmark results\n\n${MARKER}\n`;
  if (text.includes(START) && text.includes(END)) text = text.slice(0, text.indexOf(START)) + section + text.slice(text.indexOf(END) + END.length);
  else text = text.replace(MARKER, `${MARKER}\n\n${section}\n`);
  writeFileSync("bench/RESULTS.md", text);
  log("\nwrote the PostgreSQL section of bench/RESULTS.md");
}

if (!onPostgres && !quick && !serviceOnly && chosen.length === 0 && !args.some((a) => a.includes("="))) {
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${Math.round(totalmem() / 2 ** 30)} GiB, Bun ${Bun.version}, ${process.platform}`;
  // The hand-written analysis below the marker survives a new run.
  const MARKER = "<!-- analysis: kept across runs -->";
  const previous = existsSync("bench/RESULTS.md") ? readFileSync("bench/RESULTS.md", "utf8") : "";
  const analysis = previous.includes(MARKER) ? previous.slice(previous.indexOf(MARKER)) : `${MARKER}\n`;
  writeFileSync(
    "bench/RESULTS.md",
    `# Benchmark results\n\nCommand: \`npm run bench\` (all scenarios, ${S.rounds} rounds of ${S.seconds} s each, A = service, B = baseline, alternating).\nMachine: ${machine}. Date: ${new Date().toISOString().slice(0, 10)}.\nService: API + worker processes, private redis-server, fresh SQLite (WAL), LOG_LEVEL=warn${settingsNote}; autocannon with 32 connections, on 127.0.0.1; load spread over ${keys.length} paid keys of ${S.orgs} workspaces.\nBaseline: bench/baseline-server.ts, bare Bun.serve + bun:sqlite prepared statements on the same tables.\n\n## Summary (median ratio of the rounds)\n\n| scenario | result | target | |\n|---|---|---|---|\n${summary.join("\n")}\n\n## Every run\n\n\`\`\`\n${lines.join("\n").trim()}\n\`\`\`\n\n${analysis}`,
  );
  log("\nwrote bench/RESULTS.md");
}
process.exit(0);
