import { freePort } from "../../scripts/private-redis.ts";
import { systemClock } from "../../shared/clock.ts";
import { run } from "../../shared/db/flow.ts";
import { createApiKey, createWorkspace } from "../../shared/workspaces.ts";
import { exitWithin, startProcess } from "./processes.ts";
import { freshTestDatabase, testRedisUrl, uniquePrefix, type Engine, type TestDatabase } from "./test-app.ts";

/**
 * The real API entry point (`api/main.ts`) as a child process, on a free port, over a fresh
 * database (the suite's engine unless `engine` says otherwise) with one workspace and a paid
 * live key. Its log lines are collected, so a test can read what an operator would see.
 */
export async function startApiProcess(
  options: {
    env?: Record<string, string>;
    redisUrl?: string;
    waitUntilUp?: boolean;
    engine?: Engine;
    /** A second process on this one's database, key and queues. */
    beside?: { database: TestDatabase; key: string; prefix: string };
    /** The queue prefix, when not a unique one (or the one of `beside`). */
    prefix?: string;
  } = {},
) {
  const owned = options.beside === undefined;
  const database = options.beside?.database ?? (await freshTestDatabase(options.engine));
  const key = options.beside?.key ?? (await setUpWorkspace(database));
  const port = await freePort();
  const prefix = options.prefix ?? options.beside?.prefix ?? uniquePrefix("api");
  const child = startProcess("api/main.ts", {
    PORT: String(port),
    DATABASE_URL: database.url ?? `file:${database.path}`,
    REDIS_URL: options.redisUrl ?? testRedisUrl(),
    QUEUE_PREFIX: prefix,
    ADMIN_TOKEN: "admin-token-0123456789abcdef",
    SECRET_KEY: "s".repeat(40),
    LOG_LEVEL: "info",
    ...options.env,
  });
  const logs: string[] = [];
  const reading = (async () => {
    const decoder = new TextDecoder();
    let pending = "";
    for await (const chunk of child.stdout) {
      pending += decoder.decode(chunk, { stream: true });
      const lines = pending.split("\n");
      pending = lines.pop()!;
      logs.push(...lines.filter((l) => l !== ""));
    }
  })();

  const base = `http://127.0.0.1:${port}`;
  const api = {
    database,
    child,
    port,
    base,
    prefix,
    key,
    /** The SQLite handle (SQLite only), for suites about SQLite itself. */
    db: (database.database.engine === "sqlite" ? database.database.db : undefined)!,
    dbPath: database.path!,
    databaseUrl: database.url ?? `file:${database.path}`,
    query: database.query,
    count: database.count,
    logs,
    /** Log lines whose message is `msg`, parsed. */
    logged: (msg: string) => logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === msg),
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    /** Ends the process (SIGKILL when it does not exit within 10 s of SIGTERM) and removes its files. */
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        await exitWithin(child, 10_000).catch(() => {});
      }
      await reading.catch(() => {});
      if (owned) await database.cleanup();
    },
  };
  if (options.waitUntilUp !== false) await waitUntilUp(api.base, child);
  return api;
}

export type ApiProcess = Awaited<ReturnType<typeof startApiProcess>>;

/** A workspace `acme` with a paid live key; answers the key. */
async function setUpWorkspace(database: TestDatabase): Promise<string> {
  await run(createWorkspace(database.database, systemClock, { slug: "acme", name: "Acme" }));
  return (await run(createApiKey(database.database, systemClock, { workspaceSlug: "acme", name: "fault-client", mode: "live", tier: "paid" }))).key;
}

/** Polls liveness until it answers; throws (never falls through) when the process dies or stays silent. */
export async function waitUntilUp(base: string, child: { exitCode: number | null }, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the API exited with ${child.exitCode} before answering`);
    if (await fetch(`${base}/api/v1/health`).then((r) => r.ok, () => false)) return;
    await Bun.sleep(50);
  }
  throw new Error(`the API at ${base} did not answer within ${timeoutMs} ms`);
}

/** `fetch` that gives up after `ms` with a clear error instead of hanging the test. */
export async function fetchWithin(ms: number, url: string, init: RequestInit = {}): Promise<Response> {
  return fetch(url, { ...init, signal: AbortSignal.timeout(ms) });
}
