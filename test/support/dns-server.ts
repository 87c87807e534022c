import dgram from "node:dgram";

/**
 * A DNS server on loopback (UDP) answering A queries from a table the test changes at will,
 * each name with a list of answers given in turn (the last repeats); AAAA and unknown names
 * get an empty answer. The service asks it through `WEBHOOK_DNS_SERVERS`, so a test can make a
 * name resolve one way when an endpoint is saved and another when a delivery is sent.
 */
export async function startDnsServer() {
  const answers = new Map<string, string[]>();
  const queries: { name: string; type: number }[] = [];
  const socket = dgram.createSocket("udp4");
  socket.on("message", (message, peer) => {
    let at = 12;
    const labels: string[] = [];
    while (message[at] !== 0) {
      const length = message[at]!;
      labels.push(message.subarray(at + 1, at + 1 + length).toString("ascii"));
      at += length + 1;
    }
    const name = labels.join(".").toLowerCase();
    const type = message.readUInt16BE(at + 1);
    queries.push({ name, type });
    const list = answers.get(name);
    const address = type === 1 && list ? (list.length > 1 ? list.shift()! : list[0]!) : null;
    const header = Buffer.from(message.subarray(0, 12));
    header.writeUInt16BE(0x8180, 2); // a response, recursion available, no error
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(address ? 1 : 0, 6);
    header.writeUInt32BE(0, 8);
    const parts = [header, message.subarray(12, at + 5)];
    if (address) {
      const record = Buffer.alloc(16);
      record.writeUInt16BE(0xc00c, 0); // the name, by pointer to the question
      record.writeUInt16BE(1, 2); // A
      record.writeUInt16BE(1, 4); // IN
      record.writeUInt32BE(0, 6); // TTL 0: never cached
      record.writeUInt16BE(4, 10);
      Buffer.from(address.split(".").map(Number)).copy(record, 12);
      parts.push(record);
    }
    socket.send(Buffer.concat(parts), peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  return {
    server: `127.0.0.1:${(socket.address() as { port: number }).port}`,
    /** `name` resolves to these IPv4 addresses, one per query in turn (the last repeats). */
    set: (name: string, ...addresses: string[]) => void answers.set(name.toLowerCase(), addresses),
    queries,
    stop: () => socket.close(),
  };
}
