import type { Database as SqliteConnection } from "bun:sqlite";
import type { Logger } from "../logger.ts";
import type { CheckpointReport } from "./wal-checkpointer.worker.ts";

export type { CheckpointReport };

export interface WalCheckpointerOptions {
  /** How often the thread checkpoints (default 250 ms). */
  everyMs?: number;
  /** Past this many frames the thread checkpoints with RESTART, so the WAL starts over (default 16,384: ~64 MB). */
  restartAfterFrames?: number;
  logger: Logger;
  /** Each checkpoint's outcome (tests watch the WAL being copied back). */
  onReport?: (report: CheckpointReport) => void;
}

export interface WalCheckpointer {
  /** Stops the thread; the connection's own checkpoints come back on. */
  stop(): Promise<void>;
}

/** SQLite's default: a commit that finds the WAL past this many pages checkpoints it. */
const IN_COMMIT_PAGES = 1000;
const STOP_WAIT_MS = 2000;
/** How far past `restartAfterFrames` the WAL may grow before the connection's commits checkpoint it (`openValve`), and for how many ticks. */
const VALVE_FACTOR = 4;
const VALVE_TICKS = 4;

/**
 * Moves the WAL checkpoints of `connection` (the API's) onto a thread of their own
 * (wal-checkpointer.worker.ts says how the thread keeps the WAL bounded).
 *
 * A checkpoint copies the WAL back into the database file and syncs it. Left to SQLite, it runs
 * inside whichever commit finds the WAL past `wal_autocheckpoint` pages, on the committing
 * thread: in the API that is the event loop, which then answers nothing for as long as the copy
 * takes (up to 25 ms measured for 10,000 pages, and the read's p99 under load went from 6 to
 * 33 ms with them). Here the connection's own checkpoints are switched off and a worker thread
 * with a connection of its own checkpoints every `everyMs`, beside the requests.
 *
 * Should the thread fail or stop, the connection's checkpoints come back on (at SQLite's
 * default size), so the WAL stays bounded whatever happens to the thread; so they do while the
 * WAL is past four times its bound (writes back to back leave the thread's RESTART no gap).
 */
export function startWalCheckpointer(connection: SqliteConnection, path: string, options: WalCheckpointerOptions): WalCheckpointer {
  const worker = new Worker(new URL("./wal-checkpointer.worker.ts", import.meta.url).href);
  let stopping = false;
  /** The thread failed or ended by itself: the connection's commits checkpoint from then on. */
  let gone = false;
  let stopped: (() => void) | undefined;
  const inCommits = (on: boolean) => connection.exec(`PRAGMA wal_autocheckpoint = ${on ? IN_COMMIT_PAGES : 0}`);
  const everyMs = options.everyMs ?? 250;
  const restartAfterFrames = options.restartAfterFrames ?? 16_384;
  let valve: ReturnType<typeof setTimeout> | undefined;
  /**
   * The valve: a WAL the thread's RESTART cannot win against (writes back to back, with no gap
   * for it) is checkpointed by this connection's own commits for a while, the thread paused.
   * Those run right after a commit, with no write of this process in between, so the next
   * write starts the WAL over; then the thread takes over again.
   */
  function openValve(walFrames: number): void {
    options.logger.warn("the WAL outgrew the checkpoint thread: commits checkpoint it for a while", { wal_frames: walFrames });
    worker.postMessage("pause");
    inCommits(true);
    valve = setTimeout(() => {
      valve = undefined;
      if (stopping || gone) return;
      inCommits(false);
      worker.postMessage("resume");
    }, VALVE_TICKS * everyMs);
    valve.unref();
  }
  let lastError: string | undefined;

  worker.onmessage = (event: MessageEvent<CheckpointReport | "started" | "stopped">) => {
    const message = event.data;
    if (message === "started") return;
    if (message === "stopped") return stopped?.();
    // One line per kind of failure, not one a tick: the next success clears it.
    if (message.error !== undefined && message.error !== lastError) options.logger.warn("wal checkpoint failed", { error: message.error });
    lastError = message.error;
    if (!valve && message.walFrames > VALVE_FACTOR * restartAfterFrames) openValve(message.walFrames);
    options.onReport?.(message);
  };
  /** Without the thread, the connection's commits checkpoint for good (a valve still open does not switch them off again). */
  const lost = () => {
    if (stopping) return;
    gone = true;
    inCommits(true);
  };
  worker.onerror = (event) => {
    if (!stopping) options.logger.error("wal checkpointer thread failed: checkpoints run in commits again", { error: event.message });
    lost();
  };
  worker.addEventListener("close", lost);

  inCommits(false);
  worker.postMessage({ path, everyMs, restartAfterFrames });

  return {
    async stop() {
      if (stopping) return;
      stopping = true;
      clearTimeout(valve);
      const done = new Promise<void>((resolve) => {
        stopped = resolve;
        setTimeout(resolve, STOP_WAIT_MS).unref();
      });
      worker.postMessage("stop");
      await done;
      worker.terminate();
      inCommits(true);
    },
  };
}
