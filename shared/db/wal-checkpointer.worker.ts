/**
 * The thread behind `startWalCheckpointer` (wal-checkpointer.ts): its own connection to the
 * SQLite file, copying the WAL back into the database with a PASSIVE checkpoint every
 * `everyMs`. A passive checkpoint takes no lock that readers or the writer wait for: it copies
 * what no reader still needs and leaves the rest for the next one. Waiting is harmless here
 * (this thread serves no request), so the connection has a busy timeout of its own.
 */
import { Database } from "bun:sqlite";

declare const self: Worker;

interface Start {
  path: string;
  everyMs: number;
}

/** What one checkpoint did, posted after each, for the tests and the log. */
export interface CheckpointReport {
  /** Frames in the WAL when it ran. */
  walFrames: number;
  /** Of those, how many are now in the database file. */
  checkpointed: number;
  /** Set when the checkpoint failed (the disk full, the file gone); the next one tries again. */
  error?: string;
}

self.onmessage = (event: MessageEvent<Start | "stop">) => {
  if (event.data === "stop") return stop();
  start(event.data);
};

let connection: Database | undefined;
let timer: ReturnType<typeof setInterval> | undefined;

function start({ path, everyMs }: Start): void {
  connection = new Database(path, { strict: true });
  connection.exec("PRAGMA busy_timeout = 1000");
  // This connection writes nothing; its own commits would never checkpoint anyway.
  connection.exec("PRAGMA wal_autocheckpoint = 0");
  const checkpoint = connection.prepare<{ busy: number; log: number; checkpointed: number }, []>("PRAGMA wal_checkpoint(PASSIVE)");
  timer = setInterval(() => {
    let report: CheckpointReport;
    try {
      const row = checkpoint.get()!;
      report = { walFrames: row.log, checkpointed: row.checkpointed };
    } catch (error) {
      report = { walFrames: -1, checkpointed: -1, error: (error as Error).message };
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
