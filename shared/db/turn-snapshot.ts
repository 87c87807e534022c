/**
 * One SQLite read transaction shared by the reads of one event-loop turn that ask for it
 * (`StatementOptions.turnSnapshot`: the GET's version lookups), instead of one per statement.
 *
 * Why: in WAL mode every read transaction takes and drops a read mark's lock on the `-shm`
 * file, two `fcntl` calls. On the benchmark VM a GET's one-row version read cost 8–9 µs in the
 * service, of which the read itself is under 1 µs; sharing the read transaction among the
 * turn's GETs took it to ~4 µs (bench/RESULTS.md, #26's twenty-first pass).
 *
 * Why it answers what a read of its own would: every request handled in a turn was already
 * received when the turn began (the HTTP server reads what the poll found ready, then runs the
 * handlers), so anything committed before a client sent its request, by any process, committed
 * before the snapshot began and is in it. What commits during the turn is concurrent with the
 * turn's requests, which may see it or not, as with a read of their own.
 *
 * Only statements that ask join it. Every other use of the connection ends it first (`end`):
 * another statement (the revision read of exact revocation among them: it must see commits
 * after its watch's mark), and every write transaction (shared/db/client.ts), so a write never
 * runs inside the snapshot and a read after a write of the same turn sees it. It ends at the
 * latest when the turn's immediates run. A statement of the snapshot that fails ends it too.
 */
/** What this needs of a `bun:sqlite` connection. */
interface SqliteConnection {
  run(sql: string): unknown;
  readonly inTransaction: boolean;
}

const open = new WeakSet<SqliteConnection>();

/** Starts the turn's snapshot on `connection` unless one is open or the connection is in a transaction of its own. */
export function joinTurnSnapshot(connection: SqliteConnection): void {
  if (open.has(connection) || connection.inTransaction) return;
  connection.run("BEGIN");
  open.add(connection);
  setImmediate(() => endTurnSnapshot(connection));
}

/** Ends `connection`'s snapshot, if one is open (a read transaction: nothing to commit, its lock dropped). */
export function endTurnSnapshot(connection: SqliteConnection): void {
  if (!open.delete(connection)) return;
  if (connection.inTransaction) connection.run("COMMIT");
}

/** Whether `connection` is in a transaction other than the turn's snapshot. */
export const inOwnTransaction = (connection: SqliteConnection): boolean => connection.inTransaction && !open.has(connection);
