import { describe, expect, test } from "bun:test";
import { run, runSync, use, type Flow } from "../../shared/db/flow.ts";

describe("flows", () => {
  test("plain answers run synchronously, with no promise at all", () => {
    function* plain(): Flow<number> {
      return (yield* use(1)) + (yield* use(2));
    }
    expect(run(plain())).toBe(3);
    expect(runSync(plain())).toBe(3);
  });

  test("the first promised answer makes the rest asynchronous, steps in order", async () => {
    const order: string[] = [];
    function* mixed(): Flow<number> {
      const a = yield* use(1);
      order.push("a");
      const b = yield* use(Promise.resolve(2));
      order.push("b");
      const c = yield* use(3);
      order.push("c");
      return a + b + c;
    }
    const answer = run(mixed());
    expect(answer).toBeInstanceOf(Promise);
    expect(order).toEqual(["a"]);
    expect(await answer).toBe(6);
    expect(order).toEqual(["a", "b", "c"]);
  });

  test("a rejected step is thrown into the flow, where try/catch sees it", async () => {
    function* caught(): Flow<string> {
      try {
        yield* use(Promise.reject(new Error("step failed")));
        return "not reached";
      } catch (error) {
        return `caught: ${(error as Error).message}`;
      }
    }
    expect(await run(caught())).toBe("caught: step failed");
  });

  test("an error the flow raises itself ends it, after a promised step too", async () => {
    function* raises(): Flow<never> {
      yield* use(Promise.resolve());
      throw new Error("own error");
    }
    await expect((async () => run(raises()))()).rejects.toThrow("own error");
  });

  test("runSync refuses a promised answer (a SQLite transaction must not wait) and ends the flow", () => {
    let cleaned = false;
    function* waits(): Flow<void> {
      try {
        yield* use(Promise.resolve());
      } finally {
        cleaned = true;
      }
    }
    expect(() => runSync(waits())).toThrow("must answer synchronously");
    expect(cleaned).toBe(true);
  });
});
