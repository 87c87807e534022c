import { describe, expect, test } from "bun:test";
import { keepTrying } from "../../shared/db/busy.ts";

describe("keepTrying (the last writes of a shutdown)", () => {
  test("tries again until the attempt answers true, and answers true", async () => {
    let tries = 0;
    expect(await keepTrying(() => ++tries === 4, 2000)).toBe(true);
    expect(tries).toBe(4);
  });

  test("gives up once its patience has passed, and answers false", async () => {
    let tries = 0;
    const started = performance.now();
    expect(await keepTrying(async () => (++tries, false), 60)).toBe(false);
    expect(performance.now() - started).toBeGreaterThanOrEqual(60);
    expect(tries).toBeGreaterThan(1);
  });

  test("pauses with timers: the event loop serves other work between tries", async () => {
    let served = 0;
    const other = setInterval(() => served++, 1);
    let tries = 0;
    await keepTrying(() => ++tries === 6, 2000); // pauses of 1, 2, 4, 8 and 16 ms
    clearInterval(other);
    expect(served).toBeGreaterThan(0);
  });
});
