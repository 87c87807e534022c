import { writeTransaction, type Db } from "../../shared/db/client.ts";
import { createActivityStore } from "../../shared/db/activity.store.ts";
import { isDatabaseBusy } from "../../shared/db/busy.ts";
import type { ActivityEntry } from "../../shared/jobs/catalog.ts";
import type { Logger } from "../../shared/logger.ts";
import type { OutboxWriter } from "../../shared/db/outbox-writer.store.ts";

export interface ActivityRecorderOptions {
  db: Db;
  outbox: OutboxWriter;
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
  const store = createActivityStore(options.db);
  let buffer: ActivityEntry[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;

  function flush(): void {
    clearTimeout(timer);
    timer = undefined;
    if (buffer.length === 0) return;
    const entries = buffer;
    buffer = [];
    try {
      writeTransaction(options.db, () => {
        for (let i = 0; i < entries.length; i += maxBatch) {
          options.outbox.add(null, "records", "activity.batch", { entries: entries.slice(i, i + maxBatch) }, options.nowMicros());
        }
      });
    } catch (error) {
      if (!isDatabaseBusy(error)) throw error;
      // Another process holds the write lock: keep the entries and try again shortly.
      buffer = entries.concat(buffer);
      if (buffer.length > maxHeld) {
        const dropped = buffer.length - maxHeld;
        buffer = buffer.slice(dropped);
        options.logger.error("activity entries dropped: the database refused writes for too long", { count: dropped });
      }
      timer = setTimeout(flush, flushMs);
    }
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
    recordWithChange<T>(change: () => T, entry: (result: T) => ActivityEntry): { result: T; written: boolean } {
      const before = store.changeCount();
      const result = change();
      if (store.changeCount() === before) return { result, written: false };
      store.insert(entry(result));
      return { result, written: true };
    },
    flush,
    /** Writes what is buffered (shutdown). */
    async drain(): Promise<void> {
      flush();
    },
  };
}

export type ActivityRecorder = ReturnType<typeof createActivityRecorder>;
