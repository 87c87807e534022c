import type { Socket, TCPSocketListener } from "bun";

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
          try {
            const upstream = await Bun.connect<Pair>({
              hostname: target.host,
              port: target.port,
              socket: {
                data: (_, chunk) => void (frozen || client.write(chunk)),
                close: () => void client.end(),
                error: () => void client.end(),
              },
            });
            upstream.data = client.data;
            open.add(upstream);
            client.data.upstream = upstream;
            for (const chunk of client.data.pending) upstream.write(chunk);
            client.data.pending = [];
          } catch {
            client.end();
          }
        },
        data(client, chunk) {
          if (frozen) return;
          if (client.data.upstream) client.data.upstream.write(chunk);
          else client.data.pending.push(new Uint8Array(chunk));
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
