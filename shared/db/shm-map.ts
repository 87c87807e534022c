import { dlopen, FFIType, toArrayBuffer } from "bun:ffi";
import { fstatSync } from "node:fs";

/**
 * The first bytes of an open file mapped into memory shared with every process that maps it
 * (`mmap(MAP_SHARED)` through libc, by `bun:ffi`), for the commit watch (wal-commits.ts) to read
 * SQLite's WAL-index header in place instead of with a `pread` per call.
 *
 * Why not `Bun.mmap`: it takes a path, opens the file and closes its descriptor, and closing any
 * descriptor of a file drops every POSIX lock the process holds on it, SQLite's locks on the
 * `-shm` file among them (see wal-commits.ts). This maps the descriptor the watch keeps open.
 *
 * A map is made once per descriptor and kept for the life of the process, like the descriptor:
 * one page of address space per database file. SQLite never shortens a `-shm` file while a
 * process holds it open (only the first process to open it does, under an exclusive lock no
 * other process can take while this one's connections hold theirs), and a watch stops reading
 * when its database closes, so no read ever lands past the end of the file.
 *
 * Returns null where no map can be made (no libc to load, a platform without these constants,
 * a file shorter than `bytes`): the watch reads with `pread` instead.
 */
export function mapHeader(fd: number, bytes: number): Uint32Array | null {
  const kept = maps.get(fd);
  if (kept) return kept;
  const map = makeMap(fd, bytes);
  // Only a map made is kept: a file too short now (not yet sized by SQLite) may be mapped later.
  if (map !== null) maps.set(fd, map);
  return map;
}

const maps = new Map<number, Uint32Array>();

const PROT_READ = 1;
const MAP_SHARED = 1;

function makeMap(fd: number, bytes: number): Uint32Array | null {
  if (process.platform !== "linux" && process.platform !== "darwin") return null;
  try {
    if (fstatSync(fd).size < bytes) return null;
    const mmap = libcMmap();
    if (mmap === null) return null;
    const address = mmap(null, bytes, PROT_READ, MAP_SHARED, fd, 0);
    // MAP_FAILED is (void *) -1, which `bun:ffi` hands back as a bigint (2^64 - 1), not a
    // number: the type check is what refuses it. Keep it.
    if (typeof address !== "number" || address <= 0 || address >= Number.MAX_SAFE_INTEGER) return null;
    return new Uint32Array(toArrayBuffer(address, 0, bytes));
  } catch {
    return null;
  }
}

type Mmap = (address: null, length: number, prot: number, flags: number, fd: number, offset: number) => unknown;
let mmapFunction: Mmap | null | undefined;

function libcMmap(): Mmap | null {
  if (mmapFunction !== undefined) return mmapFunction;
  try {
    const library = process.platform === "darwin" ? "libSystem.B.dylib" : "libc.so.6";
    const { symbols } = dlopen(library, {
      mmap: { args: [FFIType.ptr, FFIType.u64, FFIType.i32, FFIType.i32, FFIType.i32, FFIType.i64], returns: FFIType.ptr },
    });
    mmapFunction = symbols.mmap as unknown as Mmap;
  } catch {
    mmapFunction = null;
  }
  return mmapFunction;
}
