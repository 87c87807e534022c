import type { Database as SqliteConnection } from "bun:sqlite";
import { fstatSync, openSync, readSync, realpathSync, statSync } from "node:fs";
import { mapHeader } from "./shm-map.ts";

/**
 * The two copies of the WAL-index header at the start of a WAL database's `-shm` file (SQLite's
 * file format, "walformat": two 48-byte `WalIndexHdr`, then the checkpoint information). Every
 * commit of every connection, in any process, rewrites both before the commit returns: the
 * header counts transactions (`iChange`), holds the WAL's last frame (`mxFrame`), its salts and
 * their checksum. Readers never write it (only a recovery does, which the watch takes for a
 * commit: one read too many, never one too few). The read marks that follow change with readers,
 * so they are left out.
 */
const HEADER_BYTES = 96;

/**
 * "Has anything committed since?" for a SQLite file in WAL mode, answered without a statement,
 * a transaction or a lock: the header, read in place through a shared memory map of the `-shm`
 * file (shm-map.ts; where the map cannot be made, one `pread`), compared with the header as it
 * was at `mark`. SQLite's own connections read and write the header through the same kind of
 * map, so a commit is seen the moment it is written.
 *
 * A caller that keeps what a read found marks before that read, then asks `moved()` before
 * using it again: `false` means no connection of any process committed since the mark (the
 * header would differ), so the read would find the same. A commit that lands between the mark
 * and the read is seen by the read and, once more, by the next `moved()`: it costs one read
 * more, never a stale answer. A header that cannot be read whole answers "moved".
 */
export interface CommitWatch {
  mark(): void;
  moved(): boolean;
  close(): void;
}

/**
 * Descriptors of `-shm` files, one per file for the life of the process, never closed. SQLite
 * locks the `-shm` file with POSIX advisory locks, which belong to the process, and closing any
 * descriptor of a file drops every lock the process holds on it: a watch that opened the file
 * and closed it (as `Bun.mmap` does) would take the dead-man's-switch lock away from this
 * process's connections, and another process could then take the wal-index for its own and
 * rebuild it under them. A descriptor kept open costs nothing of the sort; keyed by inode, so a
 * file deleted and made again (a database closed and opened anew) gets a descriptor of its own.
 */
const descriptors = new Map<string, number>();

function descriptorOf(path: string): number | null {
  let ino: number;
  try {
    ino = statSync(path).ino;
  } catch {
    return null;
  }
  const key = `${path}\u0000${ino}`;
  let fd = descriptors.get(key);
  if (fd === undefined) {
    fd = openSync(path, "r");
    if (fstatSync(fd).ino !== ino) return null; // replaced between the two calls: no watch (the descriptor stays, harmless)
    descriptors.set(key, fd);
  }
  return fd;
}

/** Whether `connection` has a shared header to watch: a file (not `:memory:`) in WAL mode. */
export function hasCommitsToWatch(connection: Pick<SqliteConnection, "filename" | "query">): boolean {
  const path = connection.filename;
  if (path === "" || path === ":memory:") return false;
  return (connection.query("PRAGMA journal_mode").get() as { journal_mode: string } | null)?.journal_mode === "wal";
}

/**
 * The watch for `connection`'s file, or null where there is no shared header to read (`:memory:`,
 * a journal mode other than WAL). `mapped: false` reads the header with `pread` on every
 * `moved()` (what the watch falls back to where no map can be made; the tests run both).
 */
export function watchWalCommits(connection: Pick<SqliteConnection, "filename" | "query">, { mapped = true }: { mapped?: boolean } = {}): CommitWatch | null {
  if (!hasCommitsToWatch(connection)) return null;
  const path = connection.filename;
  // A read opens the WAL index (the -shm file) if this connection has not yet.
  connection.query("SELECT 1 FROM sqlite_schema LIMIT 1").get();
  // SQLite names the -shm file after the database file with symbolic links resolved: a stale
  // -shm beside a link would never change, and the watch would vouch for an old revision.
  const fd = descriptorOf(`${realpathSync(path)}-shm`);
  if (fd === null) return null;
  const seenWords = new Uint32Array(HEADER_BYTES / 4);
  // The header in place, or a copy read on each call. A pread cost 1.5–2 µs a call on this
  // project's 2-core VM (a syscall), the map ~0.07 µs: the watch is asked on every
  // authenticated request (bench/RESULTS.md, #26's twenty-first pass).
  const inPlace = mapped ? mapHeader(fd, HEADER_BYTES) : null;
  const copy = inPlace ? null : new Uint8Array(HEADER_BYTES);
  const words = inPlace ?? new Uint32Array(copy!.buffer);
  let marked = false;
  let closed = false;
  const read = (): boolean => copy === null || readSync(fd, copy, 0, HEADER_BYTES, 0) === HEADER_BYTES;
  return {
    mark() {
      marked = !closed && read();
      if (marked) seenWords.set(words);
    },
    moved() {
      // Closed first: a closed watch's file may have been truncated by another process since.
      if (closed || !marked || !read()) return true;
      for (let i = 0; i < HEADER_BYTES / 4; i++) if (words[i] !== seenWords[i]) return true;
      return false;
    },
    close() {
      closed = true;
    },
  };
}
