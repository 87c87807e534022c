import { DomainError } from "../errors.ts";

/**
 * A database that refused a write for want of space: SQLite's `SQLITE_FULL` (the disk, or
 * `PRAGMA max_page_count`), PostgreSQL's `53100 disk_full`. The write's transaction rolled back,
 * so nothing of it is kept; the service answers 503 and recovers by itself once space is free
 * (pruning frees it too).
 */
export function isDiskFull(error: unknown): boolean {
  const e = error as { code?: unknown; errno?: unknown; cause?: unknown } | null;
  if (!e || typeof e !== "object") return false;
  if (e.code === "SQLITE_FULL" || e.errno === "53100" || e.code === "53100") return true;
  return e.cause !== undefined && e.cause !== error && isDiskFull(e.cause);
}

export const DISK_FULL_RETRY_AFTER_SECONDS = 30;

export function databaseFull(cause: unknown): DomainError {
  const error = new DomainError("service_unavailable", `The database is out of space. Retry after ${DISK_FULL_RETRY_AFTER_SECONDS} s.`, undefined, DISK_FULL_RETRY_AFTER_SECONDS);
  (error as { cause?: unknown }).cause = cause;
  return error;
}

/** When this process last saw the database refuse a write for space (performance.now()). */
let lastFullAt = Number.NEGATIVE_INFINITY;

/** Records that a write was refused for space: readiness says `full` for a while after. */
export function noteDiskFull(): void {
  lastFullAt = performance.now();
}

/** A write went through: there is space again. */
export function noteWriteSucceeded(): void {
  lastFullAt = Number.NEGATIVE_INFINITY;
}

/** Whether a write was refused for space within `windowMs`, with none through since: what readiness reports. */
export const diskFullRecently = (windowMs = 10_000): boolean => performance.now() - lastFullAt < windowMs;
