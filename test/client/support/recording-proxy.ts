import type { Socket, TCPSocketListener } from "bun";
import { connectUpstream, forwardUp } from "../../support/tcp-proxy.ts";

/**
 * A loopback TCP proxy in front of the API that keeps every exchange's bytes (what the client
 * sent, what the API answered) and can lose answers on the way back: `loseNextAnswers(n)`
 * lets the next `n` requests reach the API, lets the API answer in full, and then closes the
 * client's connection without passing on a byte of it. The API did the work; the client
 * heard nothing: the case an `Idempotency-Key` is for. `hangNextAnswers(n)` keeps the
 * connection open but silent instead (a timeout). test/support/tcp-proxy.ts cuts whole
 * connections at a moment the test picks; this one acts per request, at the one moment that
 * matters, so the test never races the API.
 */
export interface Exchange {
  /** Raw request bytes as text (head and body). */
  request: string;
  /** Raw answer bytes as the API sent them, whether or not the client got them. */
  answer: string;
  /** What happened to the answer. */
  fate: "passed" | "lost" | "hung";
  /** When the request's first byte arrived, and when the answer's did (ms since the epoch). */
  sentAt: number;
  answeredAt: number | null;
}

type Link = { exchange: Exchange; upstream?: Socket<Link>; pending: Uint8Array[]; client: Socket<Link>; fate: Exchange["fate"] };

export async function startRecordingProxy(target: { host: string; port: number }) {
  const exchanges: Exchange[] = [];
  let toLose = 0;
  let toHang = 0;
  const sockets = new Set<Socket<Link>>();
  const decoder = new TextDecoder();
  const fresh = (): Exchange => ({ request: "", answer: "", fate: "passed", sentAt: 0, answeredAt: null });

  const listener: TCPSocketListener<Link> = Bun.listen<Link>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      async open(client) {
        sockets.add(client);
        client.data = { exchange: fresh(), pending: [], client, fate: "passed" };
        await connectUpstream(client, target, sockets, {
          data(chunk) {
            const link = client.data;
            link.exchange.answeredAt ??= Date.now();
            link.exchange.answer += decoder.decode(chunk);
            if (link.fate === "passed") client.write(chunk);
            else if (link.fate === "lost") client.terminate();
          },
          close: () => void (client.data.fate === "hung" || client.end()),
          error: () => void client.end(),
        });
      },
      data(client, chunk) {
        const link = client.data;
        // A new request on this connection (keep-alive): a new exchange, with its own fate.
        if (link.exchange.request !== "" && link.exchange.answer !== "") link.exchange = fresh();
        if (link.exchange.request === "") {
          link.fate = toLose > 0 ? (toLose--, "lost") : toHang > 0 ? (toHang--, "hung") : "passed";
          link.exchange.fate = link.fate;
          link.exchange.sentAt = Date.now();
          exchanges.push(link.exchange);
        }
        link.exchange.request += decoder.decode(chunk);
        forwardUp(client, chunk);
      },
      close(client) {
        sockets.delete(client);
        client.data.upstream?.end();
      },
      error(client) {
        client.data.upstream?.end();
      },
    },
  });

  return {
    port: listener.port,
    base: `http://127.0.0.1:${listener.port}`,
    exchanges,
    /** The API answers the next `n` requests; the client hears nothing (its connection is closed). */
    loseNextAnswers(n = 1) {
      toLose += n;
    },
    /** The API answers the next `n` requests; the client's connection stays open and silent. */
    hangNextAnswers(n = 1) {
      toHang += n;
    },
    stop() {
      listener.stop(true);
      for (const socket of sockets) socket.terminate();
      sockets.clear();
    },
  };
}

/** A header of a raw HTTP message, by name in any case; undefined when absent. */
export function rawHeader(message: string, name: string): string | undefined {
  const head = message.split("\r\n\r\n")[0] ?? "";
  const line = head.split("\r\n").find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line?.slice(line.indexOf(":") + 1).trim();
}

/** The status code of a raw HTTP answer. */
export const rawStatus = (answer: string): number => Number(/^HTTP\/1\.[01] (\d{3})/.exec(answer)?.[1] ?? 0);
