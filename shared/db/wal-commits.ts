import type { Database as SqliteConnection } from "bun:sqlite";

/**
 * The two copies of the WAL-index header at the start of a WAL database's `-shm` file (SQLite's
 * file format, "walformat": two 48-byte `WalIndexHdr`, then the checkpoint information). Every
 * commit of every connection, in any process, rewrites both before the commit returns: the
 * header counts transactions (`iChange`), holds the WAL's last frame (`mxFrame`), its salts and
 * their checksum. Readers never write it (only a recovery does, which the watch takes for a
 * commit: one read too many, never one too few). The read marks that follow change with readers,
 * so they are left out.
 */
const HEADER_WORDS = 24;

/**
 * "Has anything committed since?" for a SQLite file in WAL mode, answered from memory without a
 * statement, a transaction or a lock: a 96-byte compare against the header as it was at `mark`.
 *
 * A caller that keeps what a read found marks before that read, then asks `moved()` before
 * using it again: `false` means no connection of any process committed since the mark (the
 * header would differ), so the read would find the same. A commit that lands between the mark
 * and the read is seen by the read and, once more, by the next `moved()`: it costs one read
 * more, never a stale answer.
 *
 * The file is mapped, not read: the header is the page SQLite itself maps in every connection,
 * and it is never truncated while a connection has it open. The watch is for the lifetime of
 * the connection it was made on, and `close` must come before that connection closes.
 */
export interface CommitWatch {
  mark(): void;
  moved(): boolean;
  close(): void;
}

/** The watch for `connection`'s file, or null where there is no shared header to read (`:memory:`, a journal mode other than WAL). */
export function watchWalCommits(connection: SqliteConnection): CommitWatch | null {
  const path = connection.filename;
  if (path === "" || path === ":memory:") return null;
  const mode = (connection.query("PRAGMA journal_mode").get() as { journal_mode: string } | null)?.journal_mode;
  if (mode !== "wal") return null;
  // A read opens the WAL index (the -shm file) if this connection has not yet.
  connection.query("SELECT 1 FROM sqlite_schema LIMIT 1").get();
  let mapped: Uint8Array;
  try {
    mapped = Bun.mmap(`${path}-shm`, { size: HEADER_WORDS * 4 });
  } catch {
    return null;
  }
  if (mapped.byteLength < HEADER_WORDS * 4) return null;
  let header: Uint32Array | null = new Uint32Array(mapped.buffer, mapped.byteOffset, HEADER_WORDS);
  const seen = new Uint32Array(HEADER_WORDS);
  let marked = false;
  return {
    mark() {
      if (header === null) return;
      seen.set(header);
      marked = true;
    },
    moved() {
      if (header === null || !marked) return true;
      for (let i = 0; i < HEADER_WORDS; i++) if (header[i] !== seen[i]) return true;
      return false;
    },
    close() {
      // Unmapped when collected; never read again from here on.
      header = null;
    },
  };
}
