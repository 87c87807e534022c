import { databaseBusy, isDatabaseBusy } from "./busy.ts";
import { inTransaction, writeTransaction, type Db } from "./client.ts";
import type { Transaction } from "./database.ts";
import { runSync, type Flow } from "./flow.ts";

export interface GroupCommitOptions {
  /** How long a change waits for another process's write lock before it fails with 503. */
  busyTimeoutMs: number;
  firstPauseMs?: number;
  maxPauseMs?: number;
}

interface Waiting {
  body: () => Flow<unknown>;
  deadline: number;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/**
 * Group commit on SQLite: the write transactions that requests start within one event-loop
 * turn run in one BEGIN IMMEDIATE … COMMIT, each inside its own savepoint, and each request is
 * answered after that commit. A commit is most of a small write's cost (the WAL append, and
 * the checkpoints that follow); N requests arriving together now pay for one.
 *
 * Each body still runs alone and synchronously, so it sees every earlier body's rows, exactly
 * as if the transactions had committed one after the other (which they could have). A body that
 * fails is rolled back to its savepoint and fails alone; the others commit. Only a failure of
 * the transaction itself (BEGIN or COMMIT) fails the whole group, and then nothing of it is
 * written. When another process holds the write lock, the group waits with timers (never a
 * blocking wait); a request whose wait passes `busyTimeoutMs` leaves the group with 503.
 *
 * Nested inside a running transaction (a service's own `transaction` inside a request's), it is
 * a savepoint, as `Database.transaction` is.
 */
export function createGroupCommit(db: Db, options: GroupCommitOptions): Transaction {
  let waiting: Waiting[] = [];
  let scheduled = false;
  let pauseMs = options.firstPauseMs ?? 1;

  function commitGroup(): void {
    scheduled = false;
    const group = waiting;
    waiting = [];
    const outcomes: (() => void)[] = [];
    try {
      writeTransaction(db, () => {
        // Alone in its group, a body needs no savepoint: its failure rolls the transaction back.
        if (group.length === 1) {
          const item = group[0]!;
          const value = runSync(item.body());
          outcomes.push(() => item.resolve(value));
          return;
        }
        for (const item of group) {
          try {
            const value = writeTransaction(db, () => runSync(item.body()), { contained: true });
            outcomes.push(() => item.resolve(value));
          } catch (error) {
            if (!inTransaction(db)) throw error; // the savepoint could not even roll back: the group fails
            outcomes.push(() => item.reject(error));
          }
        }
      });
    } catch (error) {
      if (isDatabaseBusy(error) && !inTransaction(db)) return retryLater(group);
      for (const item of group) item.reject(error);
      return;
    }
    pauseMs = options.firstPauseMs ?? 1;
    for (const answer of outcomes) answer();
  }

  /** Another process holds the write lock: those still within their wait try again shortly. */
  function retryLater(group: Waiting[]): void {
    const now = performance.now();
    const stillWaiting: Waiting[] = [];
    for (const item of group) {
      if (item.deadline <= now) item.reject(databaseBusy(Math.max(1, Math.ceil(options.busyTimeoutMs / 1000))));
      else stillWaiting.push(item);
    }
    waiting = stillWaiting.concat(waiting);
    if (waiting.length === 0 || scheduled) return;
    scheduled = true;
    setTimeout(commitGroup, pauseMs);
    pauseMs = Math.min(pauseMs * 2, options.maxPauseMs ?? 10);
  }

  return function* <T>(body: () => Flow<T>): Flow<T> {
    if (inTransaction(db)) return writeTransaction(db, () => runSync(body()));
    const answer = new Promise<unknown>((resolve, reject) => {
      waiting.push({ body, deadline: performance.now() + options.busyTimeoutMs, resolve, reject });
    });
    if (!scheduled) {
      scheduled = true;
      setImmediate(commitGroup);
    }
    return (yield answer) as T;
  };
}
