import type { Clock } from "../../shared/clock.ts";
import { isDatabaseBusy } from "../../shared/db/busy.ts";
import type { KeyUsageDelta as Usage } from "./api-keys.store.ts";
import type { ApiStores } from "../stores.ts";

/**
 * Per-key request count, last-used time and address, gathered in memory and written in one
 * transaction per flush (at least every second, and at shutdown), so no request waits on a
 * database write for bookkeeping. A flush the database refuses (another process holds its
 * write lock) keeps its counts for the next one: they add up, none is lost.
 */
export function createKeyUsage(store: ApiStores["apiKeys"], clock: Clock) {
  const pending = new Map<string, Usage>();

  function add(keyId: string, count: number, at: number, address: string | null): void {
    const usage = pending.get(keyId);
    if (usage) {
      usage.count += count;
      usage.lastUsedAt = Math.max(usage.lastUsedAt, at);
      if (address !== null) usage.lastUsedIp = address;
    } else {
      pending.set(keyId, { count, lastUsedAt: at, lastUsedIp: address });
    }
  }

  return {
    record(keyId: string, address: string | null): void {
      add(keyId, 1, clock.nowMicros(), address);
    },
    /** Writes what gathered; on PostgreSQL answers a promise that never rejects (a failed flush is kept). */
    flush(): void | Promise<void> {
      if (pending.size === 0) return;
      const batch = [...pending];
      pending.clear();
      const keep = () => {
        for (const [keyId, usage] of batch) add(keyId, usage.count, usage.lastUsedAt, usage.lastUsedIp);
      };
      try {
        const written = store.addUsage(batch);
        if (written instanceof Promise) return written.then(() => {}, keep);
      } catch (error) {
        if (!isDatabaseBusy(error)) throw error;
        keep();
      }
    },
  };
}

export type KeyUsage = ReturnType<typeof createKeyUsage>;
