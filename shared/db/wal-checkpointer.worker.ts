/**
 * The thread behind `startWalCheckpointer` (wal-checkpointer.ts): its own connection to the
 * SQLite file, copying the WAL back into the database with a PASSIVE checkpoint every
 * `everyMs` (250 ms in the API). A passive checkpoint takes no lock that readers or the writer
 * wait for: it copies what no reader still needs and leaves the rest for the next one.
 *
 * Passive checkpoints alone do not bound the WAL under a steady stream of writes: the WAL
 * starts over from its beginning only when a write begins with every frame copied back, and
 * with writes arriving while each checkpoint copies, that moment never comes (a scratch run
 * grew the WAL to 1.4 GB in 8 s). So once the WAL is past `restartAfterFrames`, the thread
 * checkpoints with RESTART: it waits for the writer of the moment, holds new writers off while
 * it copies what is left (the passive ones keep that small) and syncs, and the next write starts
 * the WAL over. Readers go on meanwhile; a request's write waits with timers, as for any lock.
 */
import { Database } from "bun:sqlite";

declare const self: Worker;

interface Start {
  path: string;
  everyMs: number;
  restartAfterFrames: number;
}

/** What one checkpoint did, posted after each, for the tests and the log. */
export interface CheckpointReport {
  /** Frames in the WAL when it ran. */
  walFrames: number;
  /** Of those, how many are now in the database file. */
  checkpointed: number;
  /** Whether it was a RESTART that completed: the next write starts the WAL over from its beginning. */
  restarted: boolean;
  /** Set when the checkpoint failed (the disk full, the file gone); the next one tries again. */
  error?: string;
}

let connection: Database | undefined;
let timer: ReturnType<typeof setInterval> | undefined;
let paused = false;

self.onmessage = (event: MessageEvent<Start | "stop" | "pause" | "resume">) => {
  if (event.data === "stop") return stop();
  // While the owner's own commits checkpoint (its valve, wal-checkpointer.ts), this thread
  // waits: two checkpointers at once only keep each other from finishing.
  if (event.data === "pause" || event.data === "resume") return void (paused = event.data === "pause");
  start(event.data);
};

function start({ path, everyMs, restartAfterFrames }: Start): void {
  connection = new Database(path, { strict: true });
  // A RESTART holds the checkpoint lock while it waits for the writer: not for long, or the
  // owner's own commits could not checkpoint either (its valve, wal-checkpointer.ts).
  connection.exec(`PRAGMA busy_timeout = ${Math.max(10, Math.min(100, Math.floor(everyMs / 2)))}`);
  // A checkpoint syncs the WAL before it copies and the database file after, as on the API's connection.
  connection.exec("PRAGMA synchronous = NORMAL");
  // This connection writes nothing; its own commits would never checkpoint anyway.
  connection.exec("PRAGMA wal_autocheckpoint = 0");
  type Outcome = { busy: number; log: number; checkpointed: number };
  const passive = connection.prepare<Outcome, []>("PRAGMA wal_checkpoint(PASSIVE)");
  const restart = connection.prepare<Outcome, []>("PRAGMA wal_checkpoint(RESTART)");
  timer = setInterval(() => {
    if (paused) return;
    let report: CheckpointReport;
    try {
      let row = passive.get()!;
      let restarted = false;
      // Past the bound, a RESTART right after the passive checkpoint: it holds writers off
      // only while it copies what was written during that one (see the top of this file).
      if (row.log > restartAfterFrames) {
        row = restart.get()!;
        restarted = row.busy === 0;
      }
      report = { walFrames: row.log, checkpointed: row.checkpointed, restarted };
    } catch (error) {
      report = { walFrames: -1, checkpointed: -1, restarted: false, error: (error as Error).message };
    }
    postMessage(report);
  }, everyMs);
  postMessage("started");
}

/** The owner terminates the thread once it hears "stopped". */
function stop(): void {
  clearInterval(timer);
  try {
    connection?.close();
  } finally {
    postMessage("stopped");
  }
}
