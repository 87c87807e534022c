import { afterEach, describe, expect, test } from "bun:test";
import { spawn } from "bun";
import { startApiProcess, fetchWithin, type ApiProcess } from "../support/api-process.ts";

/**
 * Another process holds SQLite's write lock for seconds. The API must go on answering
 * everything that does not need the lock (liveness, reads) while it is held, because it waits
 * for the lock with timers instead of SQLite's blocking busy wait; a write gives up after
 * DATABASE_BUSY_TIMEOUT_MS with 503 `service_unavailable` and Retry-After, leaving nothing
 * half-written; and writes succeed again once the lock is gone.
 */
let api: ApiProcess | undefined;
afterEach(async () => {
  await api?.stop();
  api = undefined;
});

function holdWriteLock(file: string, ms: number) {
  const child = spawn([process.execPath, "test/support/sqlite-locker.ts", file, String(ms)], { stdout: "pipe", stderr: "inherit" });
  const said: string[] = [];
  const reading = (async () => {
    for await (const chunk of child.stdout) said.push(...new TextDecoder().decode(chunk).split("\n").filter(Boolean));
  })();
  return {
    child,
    said,
    locked: async () => {
      while (!said.includes("locked")) {
        if (child.exitCode !== null) throw new Error("the locker exited before taking the lock");
        await Bun.sleep(10);
      }
    },
    done: async () => {
      await child.exited;
      await reading;
    },
  };
}

describe("another process holds the SQLite write lock", () => {
  test("reads and liveness keep answering during the lock, a write answers 503 with Retry-After, and writes work after it", async () => {
    api = await startApiProcess({ env: { DATABASE_BUSY_TIMEOUT_MS: "1000" } });
    const base = `${api.base}/api/v1`;
    const customer = (await (await fetchWithin(5000, `${base}/customers`, { method: "POST", headers: api.headers, body: '{"name":"Before"}' })).json()) as { id: string };
    const count = () => (api!.db.$client.query("SELECT count(*) AS n FROM customers").get() as { n: number }).n;

    const lock = holdWriteLock(api.dbPath, 5000);
    await lock.locked();
    // Each answer must arrive while the lock is still held: an event loop frozen in a busy
    // wait would answer only after "released".
    for (const path of ["/health", "/me", `/customers/${customer.id}`, "/customers?limit=5"]) {
      const response = await fetchWithin(5000, `${base}${path}`, { headers: api.headers });
      expect({ path, status: response.status, lockStillHeld: !lock.said.includes("released") }).toEqual({ path, status: 200, lockStillHeld: true });
    }

    const refused = await fetchWithin(5000, `${base}/customers`, { method: "POST", headers: api.headers, body: '{"name":"During"}' });
    expect(refused.status).toBe(503);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(((await refused.json()) as { error: unknown }).error).toMatchObject({ type: "internal_error", code: "service_unavailable" });
    expect(lock.said.includes("released")).toBe(false); // it gave up on its own bound, not because the lock went
    const patched = await fetchWithin(5000, `${base}/customers/${customer.id}`, { method: "PATCH", headers: api.headers, body: '{"name":"During"}' });
    expect(patched.status).toBe(503);

    await lock.done();
    expect(count()).toBe(1); // nothing half-written
    const after = await fetchWithin(5000, `${base}/customers`, { method: "POST", headers: api.headers, body: '{"name":"After"}' });
    expect(after.status).toBe(201);
    expect(count()).toBe(2);
    expect(api.logged("unhandled error")).toEqual([]);
  });
});
