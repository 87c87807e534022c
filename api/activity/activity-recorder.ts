import { isDatabaseBusy } from "../../shared/db/busy.ts";
import type { Transaction } from "../../shared/db/database.ts";
import { run, type Flow } from "../../shared/db/flow.ts";
import type { ActivityEntry } from "../../shared/jobs/catalog.ts";
import type { Logger } from "../../shared/logger.ts";
import type { ApiStores } from "../stores.ts";

export interface ActivityRecorderOptions {
  transaction: Transaction;
  store: ApiStores["activity"];
  /** Rows the open transaction has written so far (`Database.writes`). */
  writes: () => number;
  outbox: ApiStores["outbox"];
  logger: Logger;
  nowMicros: () => number;
  flushMs?: number;
  maxBatch?: number;
  /** Entries held while the database refuses the flush; past this the oldest are dropped (and logged). */
  maxHeld?: number;
}

/**
 * Activity entries for every authenticated call. A call that changed data writes its entry
 * in the change's own transaction (`recordWithChange`), so no crash can separate the two.
 * Every other call's entry gathers in memory and leaves as one outbox row per flush (every
 * 50 ms or 500 entries), which the relay hands to the `records` queue: the database, not
 * Redis, holds them from then on. What a SIGKILL can lose is what is in memory: at most the
 * last 50 ms of read calls' entries.
 */
export function createActivityRecorder(options: ActivityRecorderOptions) {
  const flushMs = options.flushMs ?? 50;
  const maxBatch = options.maxBatch ?? 500;
  const maxHeld = options.maxHeld ?? 50_000;
  const { store } = options;
  let buffer: ActivityEntry[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** A flush still waiting on PostgreSQL, for `drain`. */
  let writing: Promise<void> | undefined;

  function flush(): void {
    clearTimeout(timer);
    timer = undefined;
    if (buffer.length === 0) return;
    const entries = buffer;
    buffer = [];
    try {
      const written = run(
        options.transaction(function* () {
          for (let i = 0; i < entries.length; i += maxBatch) {
            yield* options.outbox.add(null, "records", "activity.batch", { entries: entries.slice(i, i + maxBatch) }, options.nowMicros());
          }
        }),
      );
      if (written instanceof Promise) {
        // PostgreSQL: a failed write (the database away) keeps the entries for the next flush.
        const pending: Promise<void> = written
          .then(
            () => {},
            () => hold(entries),
          )
          .finally(() => {
            if (writing === pending) writing = undefined;
          });
        writing = pending;
      }
    } catch (error) {
      if (!isDatabaseBusy(error)) throw error;
      hold(entries); // another process holds SQLite's write lock
    }
  }

  /** Keeps entries a flush could not write, and tries again shortly. */
  function hold(entries: ActivityEntry[]): void {
    buffer = entries.concat(buffer);
    if (buffer.length > maxHeld) {
      const dropped = buffer.length - maxHeld;
      buffer = buffer.slice(dropped);
      options.logger.error("activity entries dropped: the database refused writes for too long", { count: dropped });
    }
    clearTimeout(timer);
    timer = setTimeout(flush, flushMs);
  }

  return {
    record(entry: ActivityEntry): void {
      buffer.push(entry);
      if (buffer.length >= maxBatch) flush();
      else timer ??= setTimeout(flush, flushMs);
    },
    /**
     * Runs `change` (inside the transaction that makes it) and, when it wrote anything, the
     * call's entry beside it; returns whether it did. A call that changed nothing (a PATCH
     * with the values the record already has) is left to `record`, like a read, so it does not
     * turn a read-only transaction into a write.
     */
    *recordWithChange<T>(change: () => Flow<T>, entry: (result: T) => ActivityEntry): Flow<{ result: T; written: boolean }> {
      // Counted by the stores' own statements, in this transaction only: an idempotency claim
      // written before the change is not the change (engine-wide counters cannot tell them apart).
      const before = options.writes();
      const result = yield* change();
      if (options.writes() === before) return { result, written: false };
      yield* store.insert(entry(result));
      return { result, written: true };
    },
    flush,
    /** Writes what is buffered (shutdown). */
    async drain(): Promise<void> {
      flush();
      await writing;
    },
  };
}

export type ActivityRecorder = ReturnType<typeof createActivityRecorder>;
