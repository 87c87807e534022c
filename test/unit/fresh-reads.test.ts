import { describe, expect, test } from "bun:test";
import { freshReads } from "../../api/auth/authenticate.ts";

/** A read whose answers the test releases one by one; each answer is the number of the read. */
function controlledReads() {
  const waiting: ((value: number) => void)[] = [];
  let sent = 0;
  return {
    read: () => {
      const number = ++sent;
      return new Promise<number>((resolve) => waiting.push(() => resolve(number)));
    },
    answerNext: () => waiting.shift()!(0),
    get sent() {
      return sent;
    },
  };
}

describe("freshReads: a read never older than its caller", () => {
  test("plain answers (SQLite) are read on the spot, every call", () => {
    let reads = 0;
    const fresh = freshReads(() => ++reads);
    expect(fresh()).toBe(1);
    expect(fresh()).toBe(2);
  });

  test("a caller that comes while a read is out gets the next read, sent after that one returns", async () => {
    const reads = controlledReads();
    const fresh = freshReads(reads.read);
    const first = fresh();
    const second = fresh();
    const third = fresh();
    // The second and third callers came after read 1 was sent: they share read 2, not read 1.
    expect(reads.sent).toBe(1);
    reads.answerNext();
    expect(await first).toBe(1);
    await Bun.sleep(0);
    expect(reads.sent).toBe(2);
    // A caller coming while read 2 is out waits for read 3.
    const fourth = fresh();
    reads.answerNext();
    expect(await second).toBe(2);
    expect(await third).toBe(2);
    await Bun.sleep(0);
    expect(reads.sent).toBe(3);
    reads.answerNext();
    expect(await fourth).toBe(3);
    // Nothing out: the next caller sends at once.
    const fifth = fresh();
    expect(reads.sent).toBe(4);
    reads.answerNext();
    expect(await fifth).toBe(4);
  });

  test("a failed read fails its callers only; the next callers get a new read", async () => {
    let reads = 0;
    const fresh = freshReads(() => (++reads === 1 ? Promise.reject(new Error("away")) : Promise.resolve(reads)));
    const first = fresh();
    const second = fresh();
    expect(first).rejects.toThrow("away");
    expect(await second).toBe(2);
  });

  test("a read stuck past its patience is not waited for: the next read goes out then", async () => {
    const reads = controlledReads();
    const fresh = freshReads(reads.read, 20);
    void fresh(); // read 1 never answers
    const second = fresh();
    await Bun.sleep(40);
    // Read 2 went out when read 1 had been out for 20 ms; a caller after that waits for read 2 only.
    expect(reads.sent).toBe(2);
    reads.answerNext(); // read 1 is at the front of the queue: answering it does not answer read 2's callers
    reads.answerNext();
    expect(await second).toBe(2);
  });
});
