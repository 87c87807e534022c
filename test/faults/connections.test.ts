import { afterEach, describe, expect, test } from "bun:test";
import { spawn, type Socket } from "bun";
import { startApiProcess, fetchWithin, type ApiProcess } from "../support/api-process.ts";
import { waitFor } from "../support/side-effects-harness.ts";

/** What clients can do to the API's connections: drop mid-body, sit idle by the thousand, or race for its port. */
let api: ApiProcess | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.end();
  await api?.stop();
  api = undefined;
});

const metrics = async (a: ApiProcess) =>
  (await fetchWithin(5000, `${a.base}/metrics`, { headers: { authorization: "Bearer admin-token-0123456789abcdef" } })).text();

async function connect(port: number, onClose: () => void = () => {}): Promise<Socket> {
  const socket = await Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {}, close: onClose, error() {} } });
  sockets.push(socket);
  return socket;
}

describe("connections", () => {
  test("a client that drops mid-body is counted as a client disconnect, not a server error", async () => {
    api = await startApiProcess();
    const socket = await connect(api.port);
    socket.write(
      `POST /api/v1/customers HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${api.key}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name":"half`,
    );
    await Bun.sleep(100); // the request has reached the handler and waits for the rest of its body
    socket.terminate();
    const counted = await waitFor(async () => /^http_client_disconnects_total\{method="POST",route="\/api\/v1\/customers"\} 1$/m.test(await metrics(api!)), "the disconnect counted");
    expect(counted).toBe(true);
    const text = await metrics(api);
    expect(text).not.toMatch(/status="5\d\d"/);
    expect(api.logged("unhandled error")).toEqual([]);
    expect(api.logged("client disconnected")).toHaveLength(1);
    expect((api.db.$client.query("SELECT count(*) AS n FROM customers").get() as { n: number }).n).toBe(0);
  });

  test("a thousand idle connections: liveness keeps answering, and the API closes them after HTTP_IDLE_TIMEOUT_SECONDS", async () => {
    api = await startApiProcess({ env: { HTTP_IDLE_TIMEOUT_SECONDS: "2" } });
    let closed = 0;
    const idle = await Promise.all(Array.from({ length: 1000 }, () => connect(api!.port, () => closed++)));
    expect(idle).toHaveLength(1000);
    const health = await fetchWithin(5000, `${api.base}/api/v1/health`);
    expect(health.status).toBe(200);
    await waitFor(() => closed === 1000, "the server closing every idle connection", 20_000);
    expect((await fetchWithin(5000, `${api.base}/api/v1/health`)).status).toBe(200);
  });

  test("a second API on a port in use refuses to start, naming EADDRINUSE", async () => {
    api = await startApiProcess();
    const second = spawn([process.execPath, "api/main.ts"], {
      env: { ...process.env, PORT: String(api.port), DATABASE_URL: `file:${api.dbPath}`, REDIS_URL: process.env.TEST_REDIS_URL!, LOG_LEVEL: "warn" },
      stdout: "ignore",
      stderr: "pipe",
    });
    expect(await second.exited).toBe(1);
    expect(await new Response(second.stderr).text()).toContain("EADDRINUSE");
    // The first one still answers, and alone.
    expect((await fetchWithin(5000, `${api.base}/api/v1/health`)).status).toBe(200);
  });
});
