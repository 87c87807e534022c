import { spawn, type Subprocess } from "bun";
import { Redis } from "ioredis";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A free TCP port on loopback, as the kernel hands one out. */
export async function freePort(): Promise<number> {
  const server = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = server.port;
  server.stop(true);
  return port;
}

export interface PrivateRedis {
  url: string;
  port: number;
  pid: number;
  stop(): Promise<void>;
}

/** Whether a Redis answers PING at `url`, without retrying: a yes or no within a second. */
export async function redisAnswers(url: string): Promise<boolean> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 1000 });
  client.on("error", () => {});
  try {
    await client.connect();
    return (await client.ping()) === "PONG";
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

async function waitForPing(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await redisAnswers(url)) return;
    await Bun.sleep(25);
  }
  throw new Error(`redis-server at ${url} did not answer within ${timeoutMs} ms`);
}

/**
 * Starts a private `redis-server` on a free loopback port: throw-away for tests and
 * benchmarks, or with an append-only file (`persist`) for `npm start`, so queued jobs
 * survive a restart.
 */
export async function startPrivateRedis(options: { dir?: string; port?: number; persist?: boolean } = {}): Promise<PrivateRedis> {
  if (!Bun.which("redis-server")) {
    throw new Error("redis-server is not installed: install it (apt-get install redis-server) or set REDIS_URL.");
  }
  const port = options.port ?? (await freePort());
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), "onboarding-redis-"));
  const child: Subprocess = spawn(
    ["redis-server", "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", options.persist ? "yes" : "no", "--dir", dir],
    { stdout: "ignore", stderr: "inherit" },
  );
  await waitForPing(`redis://127.0.0.1:${port}`, 10_000);
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    pid: child.pid,
    async stop() {
      child.kill("SIGTERM");
      await child.exited;
      if (!options.dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
