import type { Clock } from "../../shared/clock.ts";
import { writeTransaction, type Db } from "../../shared/db/client.ts";
import { isDatabaseBusy } from "../../shared/db/busy.ts";

interface Usage {
  count: number;
  lastUsedAt: number;
  lastUsedIp: string | null;
}

/**
 * Per-key request count, last-used time and address, gathered in memory and written in one
 * transaction per flush (at least every second, and at shutdown), so no request waits on a
 * database write for bookkeeping. A flush the database refuses (another process holds its
 * write lock) keeps its counts for the next one: they add up, none is lost.
 */
export function createKeyUsage(db: Db, clock: Clock) {
  const pending = new Map<string, Usage>();
  const update = db.$client.prepare(
    `UPDATE api_keys SET request_count = request_count + $count,
       last_used_at = max(coalesce(last_used_at, 0), $lastUsedAt),
       last_used_ip = coalesce($lastUsedIp, last_used_ip)
     WHERE id = $keyId`,
  );

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
    flush(): void {
      if (pending.size === 0) return;
      const batch = [...pending];
      pending.clear();
      try {
        writeTransaction(db, () => {
          for (const [keyId, usage] of batch) update.run({ keyId, ...usage });
        });
      } catch (error) {
        if (!isDatabaseBusy(error)) throw error;
        for (const [keyId, usage] of batch) add(keyId, usage.count, usage.lastUsedAt, usage.lastUsedIp);
      }
    },
  };
}

export type KeyUsage = ReturnType<typeof createKeyUsage>;
