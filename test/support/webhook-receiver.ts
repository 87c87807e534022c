/**
 * A loopback webhook receiver: it records every request (headers and the raw body, byte for
 * byte) and answers as the test says, path by path and request by request: a status (with
 * headers: a redirect, a Retry-After), or a hang that never answers. Unscripted requests get 200.
 */
export type Answer = { status: number; headers?: Record<string, string>; body?: string } | "hang";

export interface Received {
  at: number;
  path: string;
  headers: Record<string, string>;
  body: string;
}

export async function startWebhookReceiver(options: { hostname?: string; port?: number } = {}) {
  const received: Received[] = [];
  const scripts = new Map<string, Answer[]>();
  const hanging = new Set<() => void>();
  const server = Bun.serve({
    hostname: options.hostname ?? "127.0.0.1",
    port: options.port ?? 0,
    idleTimeout: 0,
    async fetch(request) {
      const path = new URL(request.url).pathname;
      received.push({ at: Date.now(), path, headers: Object.fromEntries(request.headers), body: await request.text() });
      const answer = scripts.get(path)?.shift() ?? { status: 200, body: "ok" };
      if (answer === "hang") return new Promise<Response>((resolve) => hanging.add(() => resolve(new Response("late"))));
      return new Response(answer.body ?? "", { status: answer.status, headers: answer.headers });
    },
  });
  return {
    url: (path = "/hooks") => `http://${server.hostname}:${server.port}${path}`,
    port: server.port,
    received,
    /** The answers to the next requests to `path`, in order. */
    answer: (path: string, ...answers: Answer[]) => void scripts.set(path, [...(scripts.get(path) ?? []), ...answers]),
    stop() {
      for (const release of hanging) release();
      server.stop(true);
    },
  };
}

export type WebhookReceiver = Awaited<ReturnType<typeof startWebhookReceiver>>;
