/**
 * `bun bench/webhooks.ts [--seconds=S] [--rounds=R] [--db postgres]`: what webhooks cost.
 * Real processes: the API and the worker (bun api/main.ts, bun worker/main.ts) over a fresh
 * SQLite file or PostgreSQL database and a private redis-server; a loopback receiver in this
 * process answers every delivery 200.
 *
 * 1. **The API's write rate with 5 endpoints against none.** POST /api/v1/onboardings (with an
 *    Idempotency-Key) from 32 connections into two workspaces seeded alike, alternated round by
 *    round: one has no endpoint, the other 5 subscribed to every event, so each create also
 *    writes 5 delivery rows in its transaction and the API's relay hands them to BullMQ. The
 *    worker is not running yet, so the machine's two cores serve the API alone.
 * 2. **Deliveries per second from one worker.** The worker starts on the backlog the rounds left
 *    (5 per create) with its default WORKER_CONCURRENCY_WEBHOOKS (16) and delivers it: signed,
 *    resolved and checked, POSTed, its attempt recorded. Timed from the first delivery received
 *    to the last, against a bare loop in this process POSTing the same number of signed bodies
 *    16 at a time (no queue, no database).
 */
import { createHmac } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../shared/db/client.ts";
import { startPrivateRedis, freePort } from "../scripts/private-redis.ts";
import { runLoad, type LoadResult } from "./lib/load.ts";
import { copyToFreshPostgres } from "./lib/postgres.ts";
import { cpuSeconds, startBun, stop, waitForHttp } from "./lib/processes.ts";
import { seedWorkspaces, type SeededKey } from "./lib/seed.ts";

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const dbAt = process.argv.indexOf("--db");
const engine = (dbAt >= 0 ? process.argv[dbAt + 1] : arg("db")) ?? "sqlite";
if (engine !== "sqlite" && engine !== "postgres") throw new Error(`--db must be sqlite or postgres (got '${engine}')`);
const SECONDS = Number(arg("seconds") ?? 5);
const ROUNDS = Number(arg("rounds") ?? 3);
const ENDPOINTS = 5;
const CONCURRENCY = 16;
/** The drain's bound: a worker slower than this fails the benchmark instead of running on. */
const DRAIN_LIMIT_MS = 10 * 60_000;

const log = (line: string) => console.log(line);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
const dir = mkdtempSync(join(tmpdir(), "webhooks-bench-"));
const redis = await startPrivateRedis();
let postgres: Awaited<ReturnType<typeof copyToFreshPostgres>> | undefined;
const children: ReturnType<typeof startBun>[] = [];

// The receiver: every delivery answered 200 at once; the first arrival of each (endpoint,
// webhook-id) and its time kept for the drain's rate, repeats counted apart.
const arrivals: number[] = [];
const seen = new Set<string>();
let repeats = 0;
const receiver = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    await request.arrayBuffer();
    const delivery = `${new URL(request.url).pathname} ${request.headers.get("webhook-id")}`;
    if (seen.has(delivery)) repeats++;
    else if (!delivery.startsWith("/bare")) (seen.add(delivery), arrivals.push(performance.now()));
    return new Response("ok");
  },
});

try {
  const file = join(dir, "service.sqlite");
  const db = openDatabase(file);
  // 400 paid keys a workspace, as in bench/lib/in-process.ts: a run rotating over them meets no limit.
  const keys = seedWorkspaces(db, { orgs: 2, keysPerOrg: 400, onboardings: 0 });
  const [quiet, hooked] = [keys.filter((k) => k.orgId === keys[0]!.orgId), keys.filter((k) => k.orgId !== keys[0]!.orgId)];
  if (engine === "postgres") postgres = await copyToFreshPostgres(db, `webhooks_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`);
  db.$client.close();

  const port = await freePort();
  const env = {
    PORT: String(port),
    DATABASE_URL: postgres ? postgres.url : `file:${file}`,
    REDIS_URL: redis.url,
    QUEUE_PREFIX: "webhooks-bench",
    LOG_LEVEL: "warn",
    DATA_DIR: dir,
    SECRET_KEY: "w".repeat(40),
    WEBHOOK_ALLOW_HTTP: "true",
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
  };
  const api = startBun("api/main.ts", env);
  children.push(api);
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(`${base}/api/v1/health`);

  for (let i = 0; i < ENDPOINTS; i++) {
    const response = await fetch(`${base}/api/v1/webhook_endpoints`, {
      method: "POST",
      headers: { authorization: `Bearer ${hooked[0]!.key}`, "content-type": "application/json" },
      body: JSON.stringify({ url: `http://127.0.0.1:${receiver.port}/hook/${i}`, enabled_events: ["*"] }),
    });
    if (response.status !== 201) throw new Error(`creating an endpoint answered ${response.status}: ${await response.text()}`);
  }

  // ---- 1. writes with 5 endpoints against none ---------------------------------------------------
  let run = 0;
  const creates = (workspace: SeededKey[]) => {
    const stamp = ++run;
    return (n: number) => {
      const k = workspace[n % workspace.length]!;
      return {
        method: "POST" as const,
        path: "/api/v1/onboardings",
        headers: { authorization: `Bearer ${k.key}`, "content-type": "application/json", "idempotency-key": `webhooks-${stamp}-${n}` },
        body: JSON.stringify({ customer_id: k.customerId }),
      };
    };
  };
  const measured = async (workspace: SeededKey[]): Promise<LoadResult & { cpuMicros: number }> => {
    const before = cpuSeconds(api.pid);
    const result = await runLoad(base, creates(workspace), SECONDS);
    if (result.non2xx || result.errors) throw new Error(`creates failed: ${JSON.stringify(result.statuses)}, errors ${result.errors}`);
    return { ...result, cpuMicros: ((cpuSeconds(api.pid) - before) * 1e6) / Math.max(1, result.requests) };
  };
  const fmt = (r: LoadResult & { cpuMicros: number }) => `${Math.round(r.rps).toString().padStart(6)} creates/s  p50 ${r.p50.toFixed(1)} ms  p99 ${r.p99.toFixed(1)} ms  API CPU ${r.cpuMicros.toFixed(0)} µs/create`;

  log(`engine: ${engine}; ${ROUNDS} rounds of ${SECONDS} s, 32 connections, the worker stopped`);
  await runLoad(base, creates(quiet), 1); // warm, untimed
  const none: (LoadResult & { cpuMicros: number })[] = [];
  const five: (LoadResult & { cpuMicros: number })[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    none.push(await measured(quiet));
    five.push(await measured(hooked));
    log(`round ${round}  no endpoint  ${fmt(none.at(-1)!)}`);
    log(`round ${round}  5 endpoints  ${fmt(five.at(-1)!)}  ratio ${(five.at(-1)!.rps / none.at(-1)!.rps).toFixed(2)}`);
  }
  const writeRatio = median(five.map((r, i) => r.rps / none[i]!.rps));
  log(`writes with ${ENDPOINTS} endpoints / with none: ${writeRatio.toFixed(2)} (median of the rounds)`);

  // ---- 2. one worker drains the backlog -----------------------------------------------------------
  // autocannon counts the answers it read; up to 32 more creates (one per connection) were in
  // flight when a round ended, so the backlog is at least this, and is done when it stops growing.
  const atLeast = five.reduce((sum, r) => sum + r.requests, 0) * ENDPOINTS;
  log(`\n### one worker delivers the backlog: at least ${atLeast.toLocaleString()} deliveries (WORKER_CONCURRENCY_WEBHOOKS=${CONCURRENCY})`);
  const worker = startBun("worker/main.ts", env);
  children.push(worker);
  const deadline = Date.now() + DRAIN_LIMIT_MS;
  while (arrivals.length === 0) {
    if (Date.now() > deadline) throw new Error("no delivery arrived");
    await Bun.sleep(5);
  }
  const workerCpuAtFirst = cpuSeconds(worker.pid);
  while (arrivals.length < atLeast || performance.now() - arrivals.at(-1)! < 1000) {
    if (Date.now() > deadline) throw new Error(`only ${arrivals.length} of ${atLeast} deliveries within ${DRAIN_LIMIT_MS / 60_000} min`);
    await Bun.sleep(20);
  }
  const expected = arrivals.length;
  const drainSeconds = (arrivals[expected - 1]! - arrivals[0]!) / 1000;
  const workerRate = (expected - 1) / drainSeconds;
  const workerCpu = ((cpuSeconds(worker.pid) - workerCpuAtFirst) * 1e6) / (expected - 1);
  log(`${expected.toLocaleString()} deliveries, ${repeats} of them repeated`);
  await stop(worker);

  // The bare loop: the same number of signed POSTs of a body of the same size, 16 at a time.
  const body = JSON.stringify({ id: "evt_bench", object: "event", type: "onboarding.created", data: { object: { id: "onb_bench", padding: "x".repeat(900) } } });
  const secret = Buffer.alloc(24, 7);
  const bareStarted = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < expected) {
        const id = `msg_${next++}`;
        const timestamp = Math.floor(Date.now() / 1000);
        const signature = createHmac("sha256", secret).update(`${id}.${timestamp}.${body}`).digest("base64");
        const response = await fetch(`http://127.0.0.1:${receiver.port}/bare`, {
          method: "POST",
          headers: { "content-type": "application/json", "webhook-id": id, "webhook-timestamp": String(timestamp), "webhook-signature": `v1,${signature}` },
          body,
        });
        await response.arrayBuffer();
      }
    }),
  );
  const bareRate = expected / ((performance.now() - bareStarted) / 1000);
  log(`worker ${Math.round(workerRate).toLocaleString()} deliveries/s (${drainSeconds.toFixed(1)} s, worker CPU ${workerCpu.toFixed(0)} µs per delivery); bare loop ${Math.round(bareRate).toLocaleString()}/s; ratio ${(workerRate / bareRate).toFixed(2)}`);
  console.log(JSON.stringify({ engine, writeRatio, writesNone: median(none.map((r) => r.rps)), writesFive: median(five.map((r) => r.rps)), workerRate, bareRate }));
} finally {
  for (const child of children) await stop(child);
  receiver.stop(true);
  await postgres?.drop();
  await redis.stop();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
