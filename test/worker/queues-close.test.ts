import { describe, expect, test } from "bun:test";
import { Redis } from "ioredis";
import { freePort } from "../../scripts/private-redis.ts";
import { closeQueues, createQueues } from "../../shared/jobs/queues.ts";

/** A connection to a port nothing listens on, not yet connected, that tries once (the tests' own). */
async function deadConnection(): Promise<Redis> {
  const redis = new Redis(`redis://127.0.0.1:${await freePort()}`, { maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null, lazyConnect: true });
  redis.on("error", () => {});
  return redis;
}

// bun:test fails a file on an unhandled rejection; the pause lets a late one surface inside the test.
const aLateRejectionWouldSurface = () => Bun.sleep(100);

describe("closing the queues while Redis is away", () => {
  // Closed in the same turn they were made in: their connection is still starting. BullMQ drops a
  // queue's listeners at close, and a start failing after that was an unhandled rejection
  // ("Connection is closed."), which ends a process that treats them as fatal.
  test("the connection ended first, then the queues (the API's order)", async () => {
    const connection = await deadConnection();
    const queues = createQueues(connection, "qc");
    connection.disconnect();
    await closeQueues(queues);
    await aLateRejectionWouldSurface();
    expect(connection.status).toBe("end");
  });

  test("the queues closed without waiting, then the connection ended (the worker's order with Redis away)", async () => {
    const connection = await deadConnection();
    const queues = createQueues(connection, "qc");
    const closed = closeQueues(queues);
    connection.disconnect();
    await closed;
    await aLateRejectionWouldSurface();
    expect(connection.status).toBe("end");
  });

  test("a connection that keeps retrying (the API's options), ended between two tries: the close still ends, at once", async () => {
    // api/main.ts's options; the queues' connection is its duplicate (api/app.ts). Between two
    // retries ioredis neither connects nor ends a connection that is disconnected, so the queues'
    // starts never settle: closing must not wait for them.
    const api = new Redis(`redis://127.0.0.1:${await freePort()}`, { maxRetriesPerRequest: 1, enableOfflineQueue: false, commandTimeout: 1000 });
    api.on("error", () => {});
    const connection = api.duplicate({ commandTimeout: 5000 });
    connection.on("error", () => {});
    const queues = createQueues(connection, "qc");
    const deadline = Date.now() + 5000;
    while (connection.status !== "reconnecting" && Date.now() < deadline) await Bun.sleep(5);
    expect(connection.status).toBe("reconnecting");
    connection.disconnect();
    const started = performance.now();
    await closeQueues(queues);
    expect(performance.now() - started).toBeLessThan(2000);
    await aLateRejectionWouldSurface();
    api.disconnect();
  });

  test("the queues closed and waited for, then the connection ended", async () => {
    const connection = await deadConnection();
    const queues = createQueues(connection, "qc");
    await closeQueues(queues);
    connection.disconnect();
    await aLateRejectionWouldSurface();
    expect(connection.status).toBe("end");
  });
});
