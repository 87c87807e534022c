import type { ActivityPage } from "../../shared/db/activity.store.ts";
import type { Logger } from "../../shared/logger.ts";
import type { KeyUsageDelta } from "../auth/api-keys.store.ts";
import type { WriterAnswer, WriterBatch, WriterStart, WriterUsage } from "./activity-writer.worker.ts";

/**
 * Writes what calls leave behind (activity entries, keys' usage) on a thread with a connection
 * of its own to the API's SQLite file (activity-writer.worker.ts), so the flush of read calls'
 * entries and the sweep of keys' usage cost the event loop a hand-over instead of the writes,
 * their index entries and the WAL's pages.
 *
 * Measured before it (bench/RESULTS.md, issue #26's sixth pass): the flush of 500 entries held
 * the event loop 3.6 ms on average, and those stretches were two thirds of the API's stalls
 * over 2 ms under a read load; the reads' p99 waited them out. The usage sweep's slices of 100
 * keys did the same once a second per 100 keys in use until the twenty-third pass.
 */
export interface ActivityWriter {
  /**
   * Writes the pages in one transaction; rejects with the database's refusal (an error with
   * its code: busy, full) or when the thread is gone, and the caller keeps them.
   */
  write(pages: readonly ActivityPage[]): Promise<void>;
  /** Adds the keys' usage in one transaction (`KeyUsage`'s slice); rejects as `write` does, and the caller keeps the counts. */
  addUsage(batch: readonly [keyId: string, usage: KeyUsageDelta][]): Promise<void>;
  /** False once the thread failed, ended or is stopping: the caller writes on its own connection from then on. */
  alive(): boolean;
  /** Ends the thread after the writes already handed over; call after the last `write`. */
  stop(): Promise<void>;
}

export interface ActivityWriterOptions {
  logger: Logger;
  /**
   * How long the thread waits for another connection's write lock before refusing a batch
   * (default 200 ms): a lock held longer is waited out by the recorder, with timers, holding
   * the entries under its bound.
   */
  busyTimeoutMs?: number;
}

const STOP_WAIT_MS = 5000;

/** The database refused a batch (its `code` is SQLite's, for `isDatabaseBusy` and `isDiskFull`), or the thread is gone. */
class WriteRefused extends Error {
  override name = "WriteRefused";
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

/** Starts the thread for the SQLite file at `path`; null for a database in memory, which no other connection can open. */
export function startActivityWriter(path: string, options: ActivityWriterOptions): ActivityWriter | null {
  if (path === ":memory:" || path === "") return null;
  const worker = new Worker(new URL("./activity-writer.worker.ts", import.meta.url).href);
  const pending = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
  let nextId = 0;
  let gone = false;
  let stopping = false;
  let stopped: (() => void) | undefined;

  /** Everything still out is refused (its entries go back to the caller) and nothing more is sent. */
  function lose(why: string): void {
    if (gone) return;
    gone = true;
    if (!stopping) options.logger.error("activity writer thread failed: entries are written on the API's connection again", { error: why });
    for (const { reject } of pending.values()) reject(new WriteRefused(`the activity writer thread is gone: ${why}`, undefined));
    pending.clear();
    stopped?.();
  }

  worker.onmessage = (event: MessageEvent<WriterAnswer>) => {
    const answer = event.data;
    if (answer === "started") return;
    if (answer === "stopped") return stopped?.();
    const waiting = pending.get(answer.id);
    if (!waiting) return;
    pending.delete(answer.id);
    if (answer.refused) waiting.reject(new WriteRefused(answer.refused.message, answer.refused.code));
    else waiting.resolve();
  };
  worker.onerror = (event) => lose(event.message);
  worker.addEventListener("close", () => lose("the thread ended"));
  worker.postMessage({ path, busyTimeoutMs: options.busyTimeoutMs ?? 200 } satisfies WriterStart);

  /** Hands one batch over; its answer settles the promise. */
  function send(message: (id: number) => WriterBatch | WriterUsage): Promise<void> {
    // Once stopping, nothing more is sent: a batch behind "stop" would meet a closed connection.
    if (gone || stopping) return Promise.reject(new WriteRefused("the activity writer thread is gone", undefined));
    const id = nextId++;
    return new Promise<void>((resolve, reject) => {
      pending.set(id, { resolve, reject });
      worker.postMessage(message(id));
    });
  }

  return {
    write: (pages) => send((id) => ({ id, pages })),
    addUsage: (batch) => send((id) => ({ id, usage: JSON.stringify(batch) })),
    alive: () => !gone && !stopping,
    async stop() {
      if (stopping) return;
      stopping = true;
      if (!gone) {
        // Messages are handled in order: "stopped" comes after every batch sent before it.
        const answered = await new Promise<boolean>((resolve) => {
          stopped = () => resolve(true);
          setTimeout(() => resolve(false), STOP_WAIT_MS).unref();
          worker.postMessage("stop");
        });
        if (!answered) {
          // What is still out comes back to the caller, which writes it on its own connection.
          options.logger.warn("activity writer thread did not stop in time: its batches go back to the API's connection", { wait_ms: STOP_WAIT_MS });
          lose("it did not stop in time");
        }
      }
      lose("it stopped"); // nothing is still out once "stopped" came; should anything be, it goes back
      worker.terminate();
    },
  };
}
