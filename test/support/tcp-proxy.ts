import type { Socket, TCPSocketListener } from "bun";

/**
 * Connects the upstream of `client` at `target` (its bytes go to `handlers.data`), then sends
 * it what the client sent meanwhile; both sockets are kept in `sockets`. A target that refuses
 * ends the client. Shared by the proxies of the tests (this one and the client suite's
 * recording proxy).
 */
export async function connectUpstream<D extends { upstream?: Socket<D>; pending: Uint8Array[] }>(
  client: Socket<D>,
  target: { host: string; port: number },
  sockets: Set<Socket<D>>,
  handlers: { data(chunk: Uint8Array): void; close(): void; error(): void },
): Promise<void> {
  try {
    const upstream = await Bun.connect<D>({
      hostname: target.host,
      port: target.port,
      socket: { data: (_, chunk) => handlers.data(chunk), close: () => handlers.close(), error: () => handlers.error() },
    });
    upstream.data = client.data;
    sockets.add(upstream);
    client.data.upstream = upstream;
    for (const chunk of client.data.pending) upstream.write(chunk);
    client.data.pending = [];
  } catch {
    client.end();
  }
}

/** Passes the client's bytes on, or keeps them until the upstream is connected. */
export function forwardUp<D extends { upstream?: Socket<D>; pending: Uint8Array[] }>(client: Socket<D>, chunk: Uint8Array): void {
  if (client.data.upstream) client.data.upstream.write(chunk);
  else client.data.pending.push(new Uint8Array(chunk));
}

/**
 * A loopback TCP proxy that a test can cut (every connection dropped, the port closed) and
 * restore on the same port: a database host going away and coming back, or failing over.
 */
export async function startTcpProxy(target: { host: string; port: number }) {
  type Pair = { upstream?: Socket<Pair>; pending: Uint8Array[]; client?: Socket<Pair> };
  const open = new Set<Socket<Pair>>();
  let listener: TCPSocketListener<Pair> | undefined;
  let port = 0;
  /** While frozen, bytes are swallowed in both directions and connections stay open: a partition. */
  let frozen = false;

  const listen = () => {
    listener = Bun.listen<Pair>({
      hostname: "127.0.0.1",
      port,
      socket: {
        async open(client) {
          open.add(client);
          client.data = { pending: [], client };
          await connectUpstream(client, target, open, {
            data: (chunk) => void (frozen || client.write(chunk)),
            close: () => void client.end(),
            error: () => void client.end(),
          });
        },
        data(client, chunk) {
          if (!frozen) forwardUp(client, chunk);
        },
        close(client) {
          open.delete(client);
          client.data.upstream?.end();
        },
        error(client) {
          client.data.upstream?.end();
        },
      },
    });
    port = listener.port;
  };
  listen();

  return {
    get port() {
      return port;
    },
    /** Drops every connection and stops listening: connecting is refused from now on. */
    cut() {
      listener?.stop(true);
      listener = undefined;
      for (const socket of open) socket.terminate();
      open.clear();
    },
    /** Listens again on the same port, and lets bytes through again. */
    restore() {
      frozen = false;
      if (!listener) listen();
    },
    /** Keeps every connection open but silent, and refuses new ones: packets dropped, nothing reset. */
    freeze() {
      frozen = true;
      listener?.stop(false);
      listener = undefined;
    },
    stop() {
      this.cut();
    },
  };
}
