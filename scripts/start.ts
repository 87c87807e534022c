/**
 * `npm start`: everything the service needs, in one command. Generates SECRET_KEY and
 * ADMIN_TOKEN on first run (kept under DATA_DIR), checks the configuration, makes sure a
 * Redis answers (starting a private redis-server under ./data when nothing
 * answers at the default address), then runs the API and the worker side by side and stops
 * both when either stops or on SIGTERM/SIGINT.
 */
import { spawn, type Subprocess } from "bun";
import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { loadConfigOrExit } from "../shared/config.ts";
import { ensureSecrets } from "./ensure-secrets.ts";
import { redisAnswers, startPrivateRedis, type PrivateRedis } from "./private-redis.ts";

const DEFAULT_REDIS_URL = "redis://127.0.0.1:6379";
ensureSecrets(process.env.DATA_DIR || "./data");
const config = loadConfigOrExit();
const say = (message: string) => console.log(`[start] ${message}`);

let privateRedis: PrivateRedis | undefined;
let redisUrl = config.redisUrl;
if (!(await redisAnswers(redisUrl))) {
  if (redisUrl !== DEFAULT_REDIS_URL || process.env.REDIS_URL) {
    console.error(`[start] Nothing answers at REDIS_URL=${redisUrl}. Start that Redis, or unset REDIS_URL to let npm start run a private one.`);
    process.exit(1);
  }
  if (!Bun.which("redis-server")) {
    console.error(
      "[start] No Redis answers at redis://127.0.0.1:6379 and redis-server is not installed.\n" +
        "        Install it (Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis),\n" +
        "        or point REDIS_URL at a running Redis.",
    );
    process.exit(1);
  }
  const dir = resolve("data/redis");
  mkdirSync(dir, { recursive: true });
  privateRedis = await startPrivateRedis({ dir, persist: true });
  redisUrl = privateRedis.url;
  say(`no Redis at ${DEFAULT_REDIS_URL}: started a private redis-server at ${redisUrl} (data under ${dir})`);
}

const env = { ...process.env, REDIS_URL: redisUrl };
const children: Subprocess[] = [
  spawn([process.execPath, "api/main.ts"], { env, stdout: "inherit", stderr: "inherit" }),
  spawn([process.execPath, "worker/main.ts"], { env, stdout: "inherit", stderr: "inherit" }),
];

let stopping = false;
async function stop(code: number) {
  if (stopping) return;
  stopping = true;
  for (const child of children) child.kill("SIGTERM");
  await Promise.all(children.map((c) => c.exited));
  await privateRedis?.stop();
  process.exit(code);
}
process.on("SIGTERM", () => void stop(0));
process.on("SIGINT", () => void stop(0));
const first = await Promise.race(children.map((c) => c.exited));
if (!stopping) {
  say(`a process exited with code ${first}; stopping the others`);
  await stop(first === 0 ? 1 : first);
}
