import { spawn, type Subprocess } from "bun";
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

async function waitForPing(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const ok = await new Promise<boolean>((resolve) => {
        let buffer = "";
        Bun.connect({
          hostname: "127.0.0.1",
          port,
          socket: {
            open: (s) => void s.write("PING\r\n"),
            data: (s, chunk) => {
              buffer += chunk.toString();
              if (buffer.includes("PONG")) {
                s.end();
                resolve(true);
              }
            },
            error: () => resolve(false),
            connectError: () => resolve(false),
            close: () => resolve(buffer.includes("PONG")),
          },
        }).catch(() => resolve(false));
      });
      if (ok) return;
    } catch {
      // not up yet
    }
    await Bun.sleep(25);
  }
  throw new Error(`redis-server on port ${port} did not answer within ${timeoutMs} ms`);
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
  await waitForPing(port, 10_000);
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
