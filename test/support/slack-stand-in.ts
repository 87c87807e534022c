/**
 * A loopback HTTP server answering the few Slack Web API methods the worker calls, the way
 * Slack answers them (HTTP 200 with `ok: false` and an error code on refusal). It records
 * every posted message, knows which user ids exist, and can be told to fail or to hang.
 *
 * `conversations.history` pages as Slack's does: newest first, at most `limit` messages a
 * page (default 100, at most 999), only messages after `oldest` and before `latest`
 * (`inclusive` includes both), `has_more` and `response_metadata.next_cursor` to follow.
 * A stand-in that returned everything at once would hide a client that reads one page only.
 */
export interface PostedMessage {
  channel: string;
  text: string;
  metadata: { event_type: string; event_payload: Record<string, unknown> } | undefined;
  ts: string;
}

export async function startSlackStandIn(options: { token?: string; users?: string[] } = {}) {
  const token = options.token ?? "xoxb-test-token";
  const users = new Set(options.users ?? []);
  const messages: PostedMessage[] = [];
  const failures: { method: string; error: string; status?: number }[] = [];
  let hang: { release: () => void; promise: Promise<void> } | null = null;
  let postDelayMs = 0;
  let posted: () => void = () => {};
  let counter = 0;
  let historyPages = 0;

  /** Slack's ts: seconds with six digits, strictly increasing. */
  let lastTs = 0;
  const nextTs = () => {
    lastTs = Math.max(lastTs + 1, Date.now() * 1000);
    counter++;
    return (lastTs / 1_000_000).toFixed(6);
  };

  const reply = (body: unknown, status = 200) => Response.json(body, { status });

  function history(args: Record<string, unknown>) {
    const limit = args.limit === undefined ? 100 : Number(args.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 999) return { ok: false, error: "invalid_limit" };
    const inclusive = args.inclusive === true || args.inclusive === "true" || args.inclusive === "1";
    const oldest = args.oldest === undefined ? 0 : Number(args.oldest);
    const latest = args.latest === undefined ? Infinity : Number(args.latest);
    const channel = String(args.channel);
    // The cursor is opaque to clients; here it is the offset into the filtered list.
    const offset = args.cursor ? Number(Buffer.from(String(args.cursor), "base64").toString().replace(/^offset:/, "")) : 0;
    if (!Number.isInteger(offset) || offset < 0) return { ok: false, error: "invalid_cursor" };
    const matching = messages
      .filter((m) => m.channel === channel)
      .filter((m) => {
        const ts = Number(m.ts);
        return (inclusive ? ts >= oldest : ts > oldest) && (inclusive ? ts <= latest : ts < latest);
      })
      .reverse();
    const page = matching.slice(offset, offset + limit);
    const hasMore = offset + limit < matching.length;
    historyPages++;
    return {
      ok: true,
      messages: page.map((m) => ({ type: "message", ...m })),
      has_more: hasMore,
      response_metadata: { next_cursor: hasMore ? Buffer.from(`offset:${offset + limit}`).toString("base64") : "" },
    };
  }

  async function params(request: Request): Promise<Record<string, unknown>> {
    const type = request.headers.get("content-type") ?? "";
    if (type.includes("application/json")) return (await request.json()) as Record<string, unknown>;
    const form = new URLSearchParams(await request.text());
    return Object.fromEntries([...form].map(([k, v]) => [k, /^[[{]/.test(v) ? JSON.parse(v) : v]));
  }

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const method = new URL(request.url).pathname.replace(/^\/api\//, "");
      const args = await params(request);
      const given = request.headers.get("authorization")?.replace(/^Bearer /, "") ?? args.token;
      if (given !== token) return reply({ ok: false, error: "invalid_auth" });
      const failure = failures.findIndex((f) => f.method === method);
      if (failure >= 0) {
        const [f] = failures.splice(failure, 1);
        return reply({ ok: false, error: f!.error }, f!.status ?? 200);
      }
      switch (method) {
        case "conversations.open": {
          const user = String(args.users ?? "");
          if (!users.has(user)) return reply({ ok: false, error: "user_not_found" });
          return reply({ ok: true, channel: { id: `D${user}` } });
        }
        case "chat.postMessage": {
          const message = { channel: String(args.channel), text: String(args.text), metadata: args.metadata as PostedMessage["metadata"], ts: nextTs() };
          messages.push(message);
          posted();
          if (hang) await hang.promise; // Slack has the message; the caller never hears back
          if (postDelayMs) await Bun.sleep(postDelayMs);
          return reply({ ok: true, channel: message.channel, ts: message.ts });
        }
        case "conversations.history":
          return reply(history(args));
        default:
          return reply({ ok: false, error: "unknown_method" });
      }
    },
  });

  return {
    url: `http://127.0.0.1:${server.port}/api/`,
    token,
    messages,
    addUser: (id: string) => users.add(id),
    /** Someone else writes `count` messages into the conversation (as other bots and people would). */
    chatter(channel: string, count: number): void {
      for (let i = 0; i < count; i++) messages.push({ channel, text: `unrelated message ${i}`, metadata: undefined, ts: nextTs() });
    },
    /** How many pages of history were served so far. */
    historyPages: () => historyPages,
    /** The next call of `method` answers with this Slack error (and HTTP status). */
    failNext: (method: string, error: string, status?: number) => failures.push({ method, error, status }),
    /** From now on chat.postMessage records the message but never answers. */
    hangPosts(): void {
      let release!: () => void;
      hang = { promise: new Promise<void>((resolve) => (release = resolve)), release: () => release() };
    },
    /** chat.postMessage records at once but answers only after `ms`. */
    delayPosts(ms: number): void {
      postDelayMs = ms;
    },
    releaseHangs(): void {
      hang?.release();
      hang = null;
    },
    /** Resolves at the next posted message. */
    nextPost: () => new Promise<void>((resolve) => (posted = resolve)),
    stop: () => server.stop(true),
  };
}

export type SlackStandIn = Awaited<ReturnType<typeof startSlackStandIn>>;
