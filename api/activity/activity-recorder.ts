import { isDatabaseBusy, keepTrying } from "../../shared/db/busy.ts";
import { isDiskFull, noteDiskFull } from "../../shared/db/disk-full.ts";
import type { Transaction } from "../../shared/db/database.ts";
import { pagesOf, type ActivityPage } from "../../shared/db/activity.store.ts";
import { run, type Flow } from "../../shared/db/flow.ts";
import type { ActivityEntry } from "../../shared/jobs/catalog.ts";
import type { Logger } from "../../shared/logger.ts";
import { describeError } from "../../shared/errors.ts";
import type { ApiStores } from "../stores.ts";
import type { ActivityWriter } from "./activity-writer.ts";

export interface ActivityRecorderOptions {
  transaction: Transaction;
  store: ApiStores["activity"];
  /** Rows the open transaction has written so far (`Database.writes`). */
  writes: () => number;
  logger: Logger;
  nowMicros: () => number;
  flushMs?: number;
  maxBatch?: number;
  /**
   * Entries held (waiting, or in pages the database refused); past this the oldest are dropped
   * (and logged): refused pages whole, oldest first (a page is written as it was made or not at
   * all), so up to a page more than the excess.
   */
  maxHeld?: number;
  /**
   * SQLite: the thread that writes the flushes on a connection of its own (activity-writer.ts).
   * While it is alive the flush hands its entries over in slices of `maxBatch`, one transaction
   * each; without it (or once it failed) the flush writes them in `transaction`.
   */
  writer?: ActivityWriter | null;
}

/** How long `drain` keeps trying writes the database refuses. */
const DRAIN_PATIENCE_MS = 2000;

/** The status whose entries collapse: a key's refusals within one second are one entry. */
const RATE_LIMITED = 429;
const MICROS_PER_SECOND = 1_000_000;

/**
 * Activity entries for every authenticated call, each written once. A call that changed data
 * writes its entry in the change's own transaction, so no crash can separate the two: made by its
 * route's handler (`recordWithChange`), a row of `activity_entries`; made through a batcher
 * (api/http/together.ts, a batch of one included), in its workspace's page of the batch. Every
 * other call's entry gathers in memory and is written by the next flush (every 50 ms or 500 entries) as pages: each
 * workspace's entries of the flush one row of JSON text (`pagesOf`), a few rows a flush instead
 * of a row and three index entries each, which were most of a SQLite read's cost after the
 * read itself (bench/RESULTS.md, issue #26's twenty-sixth pass). On SQLite the API hands the
 * pages to a thread of its own (`writer`), one slice of `maxBatch` entries at a time, so the
 * inserts do not hold the event loop. What a SIGKILL can lose is what is in memory: at most the
 * last 50 ms of read calls' entries, the slice handed to the thread and not yet committed, and
 * the refusals of the second under way.
 *
 * Refusals cannot fill the disk: the 429s of one key within one second of the clock become one
 * entry, the first refusal's, with `repeat_count` the number of refusals. It is written once its
 * second is over (or at shutdown), so a key hammering at full speed leaves one row a second per
 * API process instead of thousands.
 */
export function createActivityRecorder(options: ActivityRecorderOptions) {
  const flushMs = options.flushMs ?? 50;
  const maxBatch = options.maxBatch ?? 500;
  const maxHeld = options.maxHeld ?? 50_000;
  const { store } = options;
  let buffer: ActivityEntry[] = [];
  /** Pages a write refused (or whose commit went unanswered): written again as they are, before anything newer. */
  let held: ActivityPage[] = [];
  /** This second's refusals per key, not yet written (key id → the entry that stands for them). */
  let refusals = new Map<string, ActivityEntry & { repeat_count: number }>();
  let refusalSecond = -1;
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** Flushes still waiting on PostgreSQL or the writer thread (a timer's flush may be out when `drain` starts another), for `drain`. */
  const writing = new Set<Promise<void>>();
  /** The slice out to the writer thread: one at a time, so what waits is in `buffer`, under `maxHeld`. */
  let sending = false;

  /** Moves refusals of seconds that are over (all of them with `all`) into the buffer. */
  function closeRefusals(all: boolean): void {
    if (refusals.size === 0) return;
    if (!all && Math.floor(options.nowMicros() / MICROS_PER_SECOND) === refusalSecond) return;
    for (const entry of refusals.values()) buffer.push(entry);
    refusals = new Map();
  }

  function schedule(): void {
    timer ??= setTimeout(flush, flushMs);
  }

  function flush(all = false): void {
    clearTimeout(timer);
    timer = undefined;
    closeRefusals(all);
    if (refusals.size > 0) schedule(); // this second's refusals wait for it to end
    if (buffer.length === 0 && held.length === 0) return;
    if (options.writer?.alive()) return sendSlice(options.writer);
    const pages = held.concat(pagesOf(buffer, maxBatch));
    held = [];
    buffer = [];
    try {
      const written = run(options.transaction(() => store.insertPages(pages)));
      if (written instanceof Promise) settle(written, pages);
    } catch (error) {
      // Another process holds SQLite's write lock, or the disk is full: kept, and tried again.
      if (isDiskFull(error)) noteDiskFull();
      else if (!isDatabaseBusy(error)) throw error;
      hold(pages);
    }
  }

  /**
   * Hands the writer thread the pages held, or else the next `maxBatch` entries as pages, unless
   * a slice is out: the next one goes when it is answered. While another connection holds the
   * write lock, what waits stays here (bounded by `maxHeld`), not in the thread's queue.
   */
  function sendSlice(writer: ActivityWriter): void {
    if (sending) return;
    sending = true;
    // Pages held go first, as they are (they go back to `hold` if this write fails too).
    let pages = held;
    held = [];
    if (pages.length === 0) {
      pages = pagesOf(buffer.slice(0, maxBatch), maxBatch);
      buffer = buffer.slice(maxBatch);
    }
    settle(
      writer.write(pages).finally(() => {
        sending = false;
      }),
      pages,
      () => {
        if (buffer.length >= maxBatch || held.length > 0) flush();
        else if (buffer.length > 0) schedule();
      },
    );
  }

  /**
   * A write answered later (PostgreSQL, the writer thread): one that fails (the database away,
   * busy past the thread's wait, full, the thread gone) keeps its pages for the next flush;
   * a failure of another kind is logged too. `drain` waits for it.
   */
  function settle(written: Promise<void>, pages: ActivityPage[], then?: () => void): void {
    const pending: Promise<void> = written
      .then(then, (error) => {
        if (isDiskFull(error)) noteDiskFull();
        else if (options.writer && !isDatabaseBusy(error)) options.logger.error("activity entries not written: kept for the next flush", { error: describeError(error) });
        hold(pages);
      })
      .finally(() => writing.delete(pending));
    writing.add(pending);
  }

  /**
   * Keeps pages a flush could not write, as they are (one may have been stored all the same: a
   * PostgreSQL COMMIT whose answer never came, which its id makes harmless), and tries again
   * shortly. Past `maxHeld` entries the oldest pages are dropped.
   */
  function hold(pages: ActivityPage[]): void {
    held = pages.concat(held);
    let heldEntries = held.reduce((sum, page) => sum + page.entry_count, 0);
    let dropped = 0;
    while (held.length > 0 && heldEntries + buffer.length > maxHeld) {
      const page = held.shift()!;
      heldEntries -= page.entry_count;
      dropped += page.entry_count;
    }
    if (buffer.length > maxHeld) {
      dropped += buffer.length - maxHeld;
      buffer = buffer.slice(buffer.length - maxHeld);
    }
    if (dropped > 0) options.logger.error("activity entries dropped: the database refused writes for too long", { count: dropped });
    clearTimeout(timer);
    timer = setTimeout(flush, flushMs);
  }

  /** Counts a refusal into its key's entry of this second. */
  function refused(entry: ActivityEntry): void {
    const second = Math.floor(entry.at / MICROS_PER_SECOND);
    if (second !== refusalSecond) {
      closeRefusals(true);
      refusalSecond = second;
    }
    const standing = refusals.get(entry.key_id);
    if (standing) standing.repeat_count += 1;
    else refusals.set(entry.key_id, { ...entry, repeat_count: 1 });
    schedule();
  }

  return {
    record(entry: ActivityEntry): void {
      if (entry.status === RATE_LIMITED) return refused(entry);
      buffer.push(entry);
      if (buffer.length >= maxBatch) flush();
      else schedule();
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
    flush: () => flush(),
    /**
     * Writes everything held, this second's refusals included (shutdown, tests). A write the
     * database refuses (another connection's lock for a moment) is tried again with timers for
     * up to `DRAIN_PATIENCE_MS`; what is still refused then stays held for the next flush.
     */
    async drain(): Promise<void> {
      await keepTrying(async () => {
        flush(true);
        // Slices to the thread go one after another: each answer sends the next.
        while (writing.size > 0) await Promise.all([...writing]);
        return buffer.length === 0 && held.length === 0 && refusals.size === 0;
      }, DRAIN_PATIENCE_MS);
    },
  };
}

export type ActivityRecorder = ReturnType<typeof createActivityRecorder>;
