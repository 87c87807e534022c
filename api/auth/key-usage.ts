import { run } from "../../shared/db/flow.ts";
import type { Clock } from "../../shared/clock.ts";
import { isDiskFull } from "../../shared/db/disk-full.ts";
import { isDatabaseBusy, keepTrying } from "../../shared/db/busy.ts";
import type { KeyUsageDelta as Usage } from "./api-keys.store.ts";
import type { ApiStores } from "../stores.ts";
import type { ActivityWriter } from "../activity/activity-writer.ts";
import { describeError } from "../../shared/errors.ts";
import type { Logger } from "../../shared/logger.ts";

/** Keys written per transaction (one statement) by `sweep`: ~0.8 ms of SQLite writes, measured 7–9 µs a key. */
const SLICE_KEYS = 100;
/** How long `flush` keeps trying a write the database refused. */
const FLUSH_PATIENCE_MS = 2000;

export interface KeyUsageOptions {
  /** Keys per transaction of `sweep` (tests make it small). */
  sliceKeys?: number;
  /**
   * SQLite: the API's writer thread (api/activity/activity-writer.ts). While it is alive the
   * sweep hands it its slices, so the event loop does not run the writes; without it (or once
   * it failed, or while it stops) they are written on the API's connection.
   */
  writer?: Pick<ActivityWriter, "alive" | "addUsage"> | null;
  /** Where a slice the thread refused for a reason other than a busy or full database is logged. */
  logger?: Logger;
}

/**
 * Per-key request count, last-used time and address, gathered in memory and written to the
 * database every second (`sweep`) and at shutdown (`flush`), so no request waits on a database
 * write for bookkeeping. A write the database refuses (another process holds its write lock)
 * keeps its counts for the next one: they add up, none is lost.
 */
export function createKeyUsage(store: Pick<ApiStores["apiKeys"], "addUsage">, clock: Clock, options: KeyUsageOptions = {}) {
  const { sliceKeys = SLICE_KEYS, writer, logger } = options;
  const pending = new Map<string, Usage>();
  let sweeping = false;

  function add(keyId: string, count: number, at: number, address: string | null): void {
    const usage = pending.get(keyId);
    if (usage) {
      usage.count += count;
      // The address is the latest use's: a refused slice given back holds uses older than
      // those counted since, and its address must not replace theirs.
      if (at >= usage.lastUsedAt) {
        usage.lastUsedAt = at;
        if (address !== null) usage.lastUsedIp = address;
      } else if (usage.lastUsedIp === null) {
        usage.lastUsedIp = address;
      }
    } else {
      pending.set(keyId, { count, lastUsedAt: at, lastUsedIp: address });
    }
  }

  /**
   * Writes up to `limit` keys, oldest first, in one transaction. Answers whether it wrote them
   * (false: the database refused, and they are back in `pending`); on PostgreSQL or through the
   * writer thread, a promise of that which never rejects.
   */
  function write(limit: number): boolean | Promise<boolean> {
    const batch: [string, Usage][] = [];
    for (const entry of pending) {
      if (batch.length === limit) break;
      batch.push(entry);
    }
    for (const [keyId] of batch) pending.delete(keyId);
    const viaThread = writer?.alive() === true;
    const keep = (error: unknown) => {
      // Through the thread, busy or full is the database's moment, and a thread that failed or
      // is stopping says so itself; anything else would refuse every slice after it too, and
      // must be seen.
      if (viaThread && writer!.alive() && !isDatabaseBusy(error) && !isDiskFull(error)) logger?.error("key usage not written: kept for the next write", { error: describeError(error) });
      for (const [keyId, usage] of batch) add(keyId, usage.count, usage.lastUsedAt, usage.lastUsedIp);
      return false;
    };
    try {
      const written = viaThread ? writer!.addUsage(batch) : run(store.addUsage(batch));
      return written instanceof Promise ? written.then(() => true, keep) : true;
    } catch (error) {
      if (!isDatabaseBusy(error) && !isDiskFull(error)) throw error;
      return keep(error); // busy or full: the counts wait for the next flush
    }
  }

  return {
    record(keyId: string, address: string | null): void {
      add(keyId, 1, clock.nowMicros(), address);
    },
    /**
     * The periodic write: what gathered, `sliceKeys` keys per transaction and one transaction
     * per event-loop turn. One transaction for 1,000 busy keys held the API's event loop for
     * 3–9 ms once a second, which requests arriving meanwhile waited out; slices of 100 held
     * it ~0.8 ms each (1–5 ms on a slower machine), and now go to the writer thread where
     * there is one. Slices are the thread's too: each is one short hold of the write lock,
     * which the API's own writes wait out. It runs at most as many slices as the keys pending
     * at its start fill, so steady traffic cannot keep one sweep going, and stops at the
     * first refusal.
     */
    async sweep(): Promise<void> {
      if (sweeping) return;
      sweeping = true;
      try {
        for (let slices = Math.ceil(pending.size / sliceKeys); slices > 0 && pending.size > 0; slices--) {
          if (!(await write(sliceKeys))) return;
          if (slices > 1) await new Promise((resolve) => setImmediate(resolve));
        }
      } finally {
        sweeping = false;
      }
    },
    /**
     * Writes everything gathered in one transaction (shutdown, tests). The write is tried at
     * once; should the database refuse it (SQLite: another connection's write lock, the disk
     * full; PostgreSQL: any failure), it is tried again with timers for up to
     * `FLUSH_PATIENCE_MS`, and what is still refused then stays gathered: this is the shutdown's
     * last write, and a lock held for a moment (another process's commit, a thread's connection
     * closing) must not cost the counts. Rejects only on an error of another kind.
     */
    async flush(): Promise<void> {
      // What is still refused at the end stays in `pending`: a later flush may still write it.
      await keepTrying(async () => pending.size === 0 || (await write(pending.size)), FLUSH_PATIENCE_MS);
    },
  };
}

export type KeyUsage = ReturnType<typeof createKeyUsage>;
