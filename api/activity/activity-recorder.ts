import { writeTransaction, type Db } from "../../shared/db/client.ts";
import { ulid } from "../../shared/ids.ts";
import type { ActivityEntry } from "../../shared/jobs/catalog.ts";
import type { Queues } from "../../shared/jobs/queues.ts";
import type { Logger } from "../../shared/logger.ts";
import type { OutboxWriter } from "../outbox/outbox.writer.ts";

export interface ActivityRecorderOptions {
  db: Db;
  queues: Queues;
  outbox: OutboxWriter;
  logger: Logger;
  nowMicros: () => number;
  flushMs?: number;
  maxBatch?: number;
}

/** Activity batches span workspaces; their outbox rows carry this in place of one. */
const ALL_WORKSPACES = "*";

/**
 * Activity entries for every authenticated call, without a database write or a BullMQ job
 * per request: entries gather in memory and leave as one `records` job per flush (every
 * 50 ms or 500 entries). When Redis is down the batch goes to the outbox instead, and the
 * relay delivers it later.
 */
export function createActivityRecorder(options: ActivityRecorderOptions) {
  const flushMs = options.flushMs ?? 50;
  const maxBatch = options.maxBatch ?? 500;
  let buffer: ActivityEntry[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const inFlight = new Set<Promise<void>>();

  async function send(entries: ActivityEntry[]): Promise<void> {
    try {
      await options.queues.records.add("activity.batch", { entries }, { jobId: `activity-${ulid()}` });
    } catch {
      writeTransaction(options.db, () =>
        options.outbox.add(ALL_WORKSPACES, "records", "activity.batch", { entries }, options.nowMicros()),
      );
    }
  }

  function flush(): Promise<void> {
    clearTimeout(timer);
    timer = undefined;
    if (buffer.length === 0) return Promise.resolve();
    const entries = buffer;
    buffer = [];
    const sending = send(entries)
      .catch((error) => options.logger.error("activity entries lost", { count: entries.length, error: (error as Error).message }))
      .finally(() => inFlight.delete(sending));
    inFlight.add(sending);
    return sending;
  }

  return {
    record(entry: ActivityEntry): void {
      buffer.push(entry);
      if (buffer.length >= maxBatch) void flush();
      else timer ??= setTimeout(() => void flush(), flushMs);
    },
    flush,
    /** Sends what is buffered and waits for every batch under way (shutdown). */
    async drain(): Promise<void> {
      await flush();
      await Promise.all(inFlight);
    },
  };
}

export type ActivityRecorder = ReturnType<typeof createActivityRecorder>;
