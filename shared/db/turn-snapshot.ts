import type { Database, Statement } from "bun:sqlite";
import { watchWalCommits, type CommitWatch } from "./wal-commits.ts";

/**
 * One SQLite read transaction shared by the reads of one event-loop turn that ask for it
 * (`StatementOptions.turnSnapshot`: the GETs' version lookups), instead of one per statement.
 *
 * Why: in WAL mode every read transaction takes and drops a read mark's lock on the `-shm`
 * file, two `fcntl` calls. On the benchmark VM a GET's one-row version read cost 8–9 µs in the
 * service, of which the read itself is under 1 µs; sharing the read transaction took it to
 * ~4 µs (bench/RESULTS.md, #26's twenty-first pass).
 *
 * Why a read that joins answers what a read of its own would: the snapshot is vouched for by
 * the WAL-index header (the commit watch, wal-commits.ts, marked before the snapshot's first
 * read). A read joins only while no connection of any process has committed since; otherwise
 * the snapshot ends and a new one begins for it. So the answer never depends on when in the
 * event loop the snapshot began, and under a read load the reads between two commits share one
 * read transaction.
 *
 * Only statements that ask join it. Every other use of the connection ends it first (`end`):
 * another statement (the revision read of exact revocation among them), and every write
 * transaction (shared/db/client.ts), so a write never runs inside it and `inTransaction` does
 * not count it. It ends at the latest when the turn's immediates run, so it never holds a read
 * mark (and the checkpoints that wait for one) past the turn. A connection without a header to
 * watch (in memory, not in WAL mode) never opens one: its reads are their own.
 */
type SqliteConnection = Pick<Database, "run" | "inTransaction" | "filename" | "query" | "prepare">;

/** A connection's snapshot: the watch that vouches for it, its two statements (prepared once, as the write transactions' are), whether one is open. */
interface Snapshots {
  watch: CommitWatch;
  begin: Statement;
  commit: Statement;
  open: boolean;
}
/** Per connection; null for one without a header to watch. */
const snapshots = new WeakMap<Pick<Database, "inTransaction">, Snapshots | null>();

function snapshotsOf(connection: SqliteConnection): Snapshots | null {
  let made = snapshots.get(connection);
  if (made === undefined) {
    const watch = watchWalCommits(connection);
    made = watch && { watch, begin: connection.prepare("BEGIN"), commit: connection.prepare("COMMIT"), open: false };
    snapshots.set(connection, made);
  }
  return made;
}

/** Joins the snapshot open on `connection`, or begins one, unless the connection is in a transaction of its own. */
export function joinTurnSnapshot(connection: SqliteConnection): void {
  const open = snapshots.get(connection);
  if (open?.open) {
    if (!open.watch.moved()) return;
    endTurnSnapshot(connection); // something committed since it began: a fresh one
  }
  if (connection.inTransaction) return;
  const state = snapshotsOf(connection);
  if (state === null) return;
  state.watch.mark();
  state.begin.run();
  state.open = true;
  setImmediate(() => {
    try {
      endTurnSnapshot(connection);
    } catch {
      // Closed meanwhile without `closeDatabase` (which ends it first): nothing is left to end.
    }
  });
}

/** Ends `connection`'s snapshot, if one is open (a read transaction: nothing to commit, its lock dropped). */
export function endTurnSnapshot(connection: Pick<Database, "inTransaction">): void {
  const state = snapshots.get(connection);
  if (!state?.open) return;
  state.open = false;
  if (connection.inTransaction) state.commit.run();
}

/** Whether `connection` is in a transaction other than the turn's snapshot. */
export const inOwnTransaction = (connection: Pick<Database, "inTransaction">): boolean => connection.inTransaction && snapshots.get(connection)?.open !== true;
