import { entriesOfPage } from "../../shared/db/activity.store.ts";

/**
 * Every activity entry stored, read the way the tests need it: a change made by its route's
 * handler has a row of `activity_entries`; the entries the API held in memory, and those of
 * changes made through a batcher, are pages of `activity_pages`
 * (shared/db/activity.store.ts). Both are decoded here into one list, oldest first, so a test
 * asserts what was recorded, wherever the store put it.
 */
export interface StoredEntry {
  request_id: string;
  org_id: string;
  key_id: string;
  actor: string;
  method: string;
  route: string;
  status: number;
  address: string | null;
  duration_ms: number;
  at: number;
  repeat_count: number;
}

interface Queryable {
  query<Row = Record<string, unknown>>(sql: string, ...params: never[]): Promise<Row[]>;
}

/** PostgreSQL returns bigint columns as text; entries decoded from JSON carry numbers already. */
const normalized = (entry: Record<string, unknown>): StoredEntry => ({
  ...(entry as unknown as StoredEntry),
  status: Number(entry.status),
  duration_ms: Number(entry.duration_ms),
  at: Number(entry.at),
  repeat_count: Number(entry.repeat_count ?? 1),
});

export async function storedActivity(db: Queryable, keep: (entry: StoredEntry) => boolean = () => true): Promise<StoredEntry[]> {
  const rows = await db.query<Record<string, unknown>>(
    "SELECT request_id, org_id, key_id, actor, method, route, status, address, duration_ms, at, repeat_count FROM activity_entries",
  );
  const pages = await db.query<{ org_id: string; entries: string }>("SELECT org_id, entries FROM activity_pages");
  const entries = [...rows, ...pages.flatMap((page) => entriesOfPage(page.org_id, page.entries) as unknown as Record<string, unknown>[])].map(normalized).filter(keep);
  return entries.sort((a, b) => a.at - b.at);
}

/** The request ids of the entries stored (those `keep` keeps), rows and pages alike. */
export async function storedRequestIds(db: Queryable, keep?: (entry: StoredEntry) => boolean): Promise<Set<string>> {
  return new Set((await storedActivity(db, keep)).map((entry) => entry.request_id));
}

/** How many entries stand for `requestId`: 1 once it is recorded, never more. */
export async function entriesOf(db: Queryable, requestId: string): Promise<number> {
  return (await storedActivity(db, (entry) => entry.request_id === requestId)).length;
}
