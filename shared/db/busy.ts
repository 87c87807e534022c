import { DomainError } from "../errors.ts";

/** SQLite's answer when another connection holds the write lock (SQLITE_BUSY, SQLITE_BUSY_*). */
export function isDatabaseBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("SQLITE_BUSY");
}

export interface BusyRetryOptions {
  /** Give up after this long; the caller answers 503 (the API) or retries later (a job). */
  timeoutMs: number;
  /** First pause; each pause doubles up to `maxPauseMs`. */
  firstPauseMs?: number;
  maxPauseMs?: number;
}

export const databaseBusy = (retryAfterSeconds: number) =>
  new DomainError(
    "service_unavailable",
    `The database is busy (another process holds its write lock). Retry after ${retryAfterSeconds} s.`,
    undefined,
    retryAfterSeconds,
  );

/**
 * Runs `attempt` until it does not fail with SQLITE_BUSY, pausing between tries with timers,
 * never with a blocking wait, so every other request keeps being served while a lock is held
 * elsewhere. `attempt` must be safe to repeat: a synchronous transaction that rolled back.
 * After `timeoutMs` the busy error becomes `service_unavailable` (503 with Retry-After).
 */
export async function retryWhileBusy<T>(attempt: () => T | Promise<T>, options: BusyRetryOptions): Promise<T> {
  const deadline = performance.now() + options.timeoutMs;
  let pause = options.firstPauseMs ?? 2;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (!isDatabaseBusy(error)) throw error;
      const left = deadline - performance.now();
      if (left <= 0) throw databaseBusy(Math.max(1, Math.ceil(options.timeoutMs / 1000)));
      await Bun.sleep(Math.min(pause, left));
      pause = Math.min(pause * 2, options.maxPauseMs ?? 100);
    }
  }
}

/**
 * `retryWhileBusy` without its cost when the lock is free (nearly always): the first attempt
 * runs synchronously and only a busy database turns the call asynchronous.
 */
export function tryOrRetryWhileBusy<T>(attempt: () => T, options: BusyRetryOptions): T | Promise<Awaited<T>> {
  try {
    return attempt();
  } catch (error) {
    if (!isDatabaseBusy(error)) throw error;
    return retryWhileBusy(attempt, options) as Promise<Awaited<T>>;
  }
}

/**
 * Runs `attempt` until it answers true, pausing 1, 2, 4 … 50 ms between tries with timers, for
 * up to `patienceMs`; answers whether it did. For the last writes of a shutdown (key usage,
 * activity entries), which a lock held for a moment elsewhere (another process's commit, a
 * thread's connection closing) must not cost, and which have no caller to answer 503 to.
 */
export async function keepTrying(attempt: () => boolean | Promise<boolean>, patienceMs: number): Promise<boolean> {
  const deadline = performance.now() + patienceMs;
  for (let pause = 1; ; pause = Math.min(pause * 2, 50)) {
    if (await attempt()) return true;
    if (performance.now() >= deadline) return false;
    await Bun.sleep(pause);
  }
}
