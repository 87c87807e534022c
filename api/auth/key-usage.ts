import type { Clock } from "../../shared/clock.ts";
import { writeTransaction, type Db } from "../../shared/db/client.ts";

interface Usage {
  count: number;
  lastUsedAt: number;
  lastUsedIp: string | null;
}

/**
 * Per-key request count, last-used time and address, gathered in memory and written in one
 * transaction per flush (at least every second, and at shutdown), so no request waits on a
 * database write for bookkeeping.
 */
export function createKeyUsage(db: Db, clock: Clock) {
  const pending = new Map<string, Usage>();
  const update = db.$client.prepare(
    `UPDATE api_keys SET request_count = request_count + $count,
       last_used_at = max(coalesce(last_used_at, 0), $lastUsedAt),
       last_used_ip = coalesce($lastUsedIp, last_used_ip)
     WHERE id = $keyId`,
  );

  return {
    record(keyId: string, address: string | null): void {
      const usage = pending.get(keyId);
      const now = clock.nowMicros();
      if (usage) {
        usage.count++;
        usage.lastUsedAt = now;
        if (address !== null) usage.lastUsedIp = address;
      } else {
        pending.set(keyId, { count: 1, lastUsedAt: now, lastUsedIp: address });
      }
    },
    flush(): void {
      if (pending.size === 0) return;
      const batch = [...pending];
      pending.clear();
      writeTransaction(db, () => {
        for (const [keyId, usage] of batch) update.run({ keyId, ...usage });
      });
    },
  };
}

export type KeyUsage = ReturnType<typeof createKeyUsage>;
