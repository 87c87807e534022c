/**
 * `npm start`: everything the service needs, in one command. Generates SECRET_KEY and
 * ADMIN_TOKEN on first run (kept under DATA_DIR), reads the settings it ran with last time
 * (DATA_DIR/settings.json; the environment wins), checks the configuration, writes the settings
 * back for the other terminals (the operator command line reads them), makes sure a Redis
 * answers (starting a private redis-server under DATA_DIR/redis when nothing answers at the
 * default address), then runs the API and the worker side by side and stops both when either
 * stops or on SIGTERM/SIGINT.
 */
import { spawn, type Subprocess } from "bun";
import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { loadConfigOrExit, redactPassword } from "../shared/config.ts";
import { run } from "../shared/db/flow.ts";
import { describeDatabase, openConfiguredDatabase } from "../shared/db/open.ts";
import { CARRIED_SETTINGS, dataDirOf, DEFAULT_DATA_DIR, withInstallationFiles, writeSettings } from "../shared/installation-files.ts";
import { listWorkspaces } from "../shared/workspaces.ts";
import { withRuntimeEnv } from "../shared/runtime-env.ts";
import { ensureSecrets } from "./ensure-secrets.ts";
import { redisAnswers, startPrivateRedis, type PrivateRedis } from "./private-redis.ts";

const DEFAULT_REDIS_URL = "redis://127.0.0.1:6379";
const say = (message: string) => console.log(`[start] ${message}`);
const secrets = ensureSecrets(dataDirOf(process.env));
const config = loadConfigOrExit();
// The settings as resolved (environment, then the file), without the secrets: what the file
// keeps and what the two processes are given.
const installationEnv = withInstallationFiles(process.env).env; // loadConfigOrExit read the same files without a fault
const settings = Object.fromEntries(CARRIED_SETTINGS.filter((name) => installationEnv[name] !== undefined).map((name) => [name, installationEnv[name]!]));
const written = writeSettings({ ...settings, DATA_DIR: process.env.DATA_DIR });
/** The operator command line as another terminal must call it: DATA_DIR is the one setting not in the file. */
const adminCommand = dataDirOf(process.env) === DEFAULT_DATA_DIR ? "npm run -s admin --" : `DATA_DIR=${process.env.DATA_DIR} npm run -s admin --`;
say(
  `port ${config.port}, public URL ${config.publicUrl}, database ${describeDatabase(config.database)}, data in ${resolve(config.dataDir)}; ` +
    `these settings are kept in ${written.file} for \`${adminCommand} …\` in other terminals and for the next npm start`,
);

let privateRedis: PrivateRedis | undefined;
let redisUrl = config.redisUrl;
const redisGiven = settings.REDIS_URL !== undefined;
if (await redisAnswers(redisUrl)) {
  say(
    `using the Redis already running at ${redactPassword(redisUrl)}, queue prefix '${config.queuePrefix}' ` +
      `(the API and the worker refuse to start when '${config.queuePrefix}:installation' there names another installation; ` +
      "set QUEUE_PREFIX to keep this installation apart from others sharing that Redis)",
  );
} else {
  if (redisUrl !== DEFAULT_REDIS_URL || redisGiven) {
    const where = process.env.REDIS_URL === undefined ? ` (read from ${written.file})` : "";
    console.error(`[start] Nothing answers at REDIS_URL=${redactPassword(redisUrl)}${where}. Start that Redis, or unset REDIS_URL (and remove it from ${written.file}) to let npm start run a private one.`);
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
  // Under DATA_DIR like everything else the installation keeps (two checkouts with their own
  // DATA_DIR no longer share one Redis's files).
  const dir = resolve(config.dataDir, "redis");
  mkdirSync(dir, { recursive: true });
  privateRedis = await startPrivateRedis({ dir, persist: true });
  redisUrl = privateRedis.url;
  say(`no Redis at ${DEFAULT_REDIS_URL}: started a private redis-server at ${redisUrl} (data under ${dir}), queue prefix '${config.queuePrefix}'`);
}

// The processes get the resolved settings (they would read the same file), the Redis found and
// the runtime's own settings (shared/runtime-env.ts).
const env = withRuntimeEnv({ ...process.env, ...settings, REDIS_URL: redisUrl });
const children: Subprocess[] = [
  spawn([process.execPath, "api/main.ts"], { env, stdout: "inherit", stderr: "inherit" }),
  spawn([process.execPath, "worker/main.ts"], { env, stdout: "inherit", stderr: "inherit" }),
];

/** Once the API answers: where it is, and on a first start the two commands that make it usable. */
async function tellNextStep(): Promise<void> {
  const local = `http://${["0.0.0.0", "::", ""].includes(config.host) ? "127.0.0.1" : config.host}:${config.port}`;
  const deadline = Date.now() + 15_000;
  let up = false;
  while (!up && Date.now() < deadline) {
    up = await fetch(`${local}/api/v1/health`).then((r) => r.ok, () => false);
    if (!up) await Bun.sleep(100);
  }
  if (!up) {
    say(`the API did not answer at ${local}/api/v1/health within 15 s; see its log above`);
    return;
  }
  say(`API at ${config.publicUrl}/api/v1; reference at ${config.publicUrl}/api/v1/docs`);
  const database = await openConfiguredDatabase(config.database).catch(() => null);
  if (!database) return; // the API says why it cannot reach it
  const workspaces = (await run(listWorkspaces(database))).length;
  await database.close();
  if (workspaces > 0) return;
  const tokenAt = process.env.ADMIN_TOKEN ? "the ADMIN_TOKEN environment variable" : `ADMIN_TOKEN in ${secrets.file}`;
  say(
    [
      "no workspace yet. Next, in another terminal, create one and its first API key:",
      `          ${adminCommand} workspace create --slug acme --name "Acme Inc"`,
      `          ${adminCommand} key create --workspace acme --name crm-sync`,
      "        The key is shown once. The admin token for /metrics and /admin/queues is " + tokenAt + ".",
      "        To manage keys and users in the browser instead, make an administrator and open the link it prints:",
      `          ${adminCommand} user add --workspace acme --name "Ada" --email ada@acme.example --role admin`,
      `        The API guide is docs/api.md; the API reference is at ${config.publicUrl}/api/v1/docs.`,
    ].join("\n"),
  );
}

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
void tellNextStep();
const first = await Promise.race(children.map((c) => c.exited));
if (!stopping) {
  say(`a process exited with code ${first}; stopping the others`);
  await stop(first === 0 ? 1 : first);
}
