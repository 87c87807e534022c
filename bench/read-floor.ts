/**
 * `bun bench/read-floor.ts [--seconds=N] [--rounds=N] [--wrk]`: where a read's cost goes, against the
 * bare server (bench/baseline-server.ts) in the same run. One SQLite file (one workspace, 3,000
 * paid keys, 2,000 onboardings) and one private Redis serve, in turn:
 *
 * - `bare`: the baseline, a prepared read and `Response.json` of the row;
 * - `response`: the contract's response served bare (the resource, `Request-Id`, the rate-limit
 *   headers) with none of the per-read steps (bench/lib/read-steps-server.ts);
 * - `+auth`, `+limit`, `+activity`: the same with the service's own components switched on one
 *   after the other (the key with exact revocation, the shared limit, the activity entry and
 *   the key's usage);
 * - `service`: the API itself (api/main.ts: Elysia, the router's pipeline, every step).
 *
 * autocannon (or wrk, with --wrk) drives each for N seconds (32 connections, keys in turn), A B C … alternated, and
 * prints req/s, p99, the server's CPU per request and the ratio to `bare`. Each server has its
 * own Redis prefix, so the rate limits of one never refuse another's requests.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../shared/db/client.ts";
import { freePort, startPrivateRedis } from "../scripts/private-redis.ts";
import { runLoad, type LoadRequest } from "./lib/load.ts";
import { runWrk } from "./lib/wrk.ts";
import { cpuSeconds, mainThreadCpuSeconds, startBun, stop, waitForHttp } from "./lib/processes.ts";
import { seedWorkspaces } from "./lib/seed.ts";

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => Number(args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback);
const seconds = option("seconds", 6);
const rounds = option("rounds", 3);
// --wrk: wrk drives the load from a process of its own, instead of autocannon in this one.
const useWrk = args.includes("--wrk");
const load = useWrk ? runWrk : runLoad;

const dir = mkdtempSync(join(tmpdir(), "read-floor-"));
const redis = await startPrivateRedis();
const servers: { name: string; child: ReturnType<typeof startBun>; url: string }[] = [];
try {
  const file = join(dir, "floor.sqlite");
  const db = openDatabase(file);
  const keys = seedWorkspaces(db, { orgs: 1, keysPerOrg: 3000, onboardings: 2000 });
  db.$client.close();
  const { orgId, onboardingIds } = keys[0]!;

  const variants: [name: string, steps: string][] = [
    ["response", ""],
    ["+auth", "auth"],
    ["+limit", "auth,limit"],
    ["+activity", "auth,limit,usage,activity"],
  ];
  const start = async (name: string, script: string, env: Record<string, string>, ready: string) => {
    const port = await freePort();
    const child = startBun(script, { PORT: String(port), LOG_LEVEL: "warn", ...env });
    const url = `http://127.0.0.1:${port}`;
    await waitForHttp(`${url}${ready}`);
    servers.push({ name, child, url });
  };
  await start("bare", "bench/baseline-server.ts", { BASELINE_DB: file }, `/api/v1/onboardings/${onboardingIds[0]}`);
  for (const [name, steps] of variants) {
    await start(name, "bench/lib/read-steps-server.ts", { DATABASE_FILE: file, REDIS_URL: redis.url, REDIS_PREFIX: `floor${servers.length}`, STEPS: steps, ORG_ID: orgId }, "/ready");
  }
  await start("service", "api/main.ts", { DATABASE_URL: `file:${file}`, REDIS_URL: redis.url, QUEUE_PREFIX: "floorapi", DATA_DIR: dir, SECRET_KEY: "f".repeat(40) }, "/api/v1/health");

  const make = (n: number): LoadRequest => ({
    method: "GET",
    path: `/api/v1/onboardings/${onboardingIds[(n >> 3) % onboardingIds.length]}`,
    headers: { authorization: `Bearer ${keys[n % keys.length]!.key}` },
  });
  console.log(`### GET /api/v1/onboardings/{id}: the contract's response, its steps one by one, and the service (${rounds} rounds of ${seconds} s, ${useWrk ? "wrk" : "autocannon"}, 32 connections)`);
  for (let round = 1; round <= rounds; round++) {
    let bare = 0;
    for (const server of servers) {
      const before = cpuSeconds(server.child.pid);
      const loopBefore = mainThreadCpuSeconds(server.child.pid);
      const result = await load(server.url, make, seconds);
      const perRequest = (seconds: number) => (seconds * 1e6) / Math.max(1, result.requests);
      const cpu = perRequest(cpuSeconds(server.child.pid) - before);
      const loop = perRequest(mainThreadCpuSeconds(server.child.pid) - loopBefore);
      if (server.name === "bare") bare = result.rps;
      const refused = result.non2xx ? `  (non-2xx ${result.non2xx})` : "";
      console.log(`round ${round}  ${server.name.padEnd(10)} ${Math.round(result.rps).toString().padStart(6)} req/s  p99 ${result.p99.toFixed(1).padStart(5)} ms  server ${cpu.toFixed(1).padStart(5)} µs/request (event loop ${loop.toFixed(1).padStart(5)})  ratio ${(result.rps / bare).toFixed(2)}${refused}`);
    }
  }
} finally {
  for (const server of servers) await stop(server.child);
  await redis.stop();
  rmSync(dir, { recursive: true, force: true });
}
