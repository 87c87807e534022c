import type { ActivityEntry } from "../jobs/catalog.ts";
import { monotonicUlid } from "../ids.ts";
import type { Flow } from "./flow.ts";
import { decoder, insertRows, type Sql } from "./sql.ts";

/** The table's columns, named as the entry's fields. */
const FIELDS = ["request_id", "org_id", "key_id", "actor", "method", "route", "status", "address", "duration_ms", "at", "repeat_count"] as const satisfies readonly (keyof ActivityEntry)[];
const PAGE_FIELDS = ["id", "org_id", "first_at", "last_at", "entry_count", "entries"] as const;

/** An entry as stored: `repeat_count` is always there (1 for an entry that stands for one call). */
export type StoredActivityEntry = ActivityEntry & { repeat_count: number };

/** A workspace's entries of one flush, as one row of `activity_pages` (see the schema). */
export interface ActivityPage {
  id: string;
  org_id: string;
  first_at: number;
  last_at: number;
  entry_count: number;
  /** The entries as a JSON array, in the order they were recorded (`encodeEntries`). */
  entries: string;
}

const pageIds = monotonicUlid();

/**
 * An entry in a page: its fields in this order, `repeat_count` only where it is not 1, and no
 * `org_id` (the page's own). Field names and the workspace took 44% of a page's text as objects
 * (287 bytes an entry against 160), which the writer thread, the WAL and the checkpoint then
 * copied, and they made `JSON.stringify` slower by a third (bench/RESULTS.md, issue #26's
 * twenty-seventh pass).
 */
type PageEntry = [request_id: string, key_id: string, actor: string, method: string, route: string, status: number, address: string | null, duration_ms: number, at: number, repeat_count?: number];

function pageEntryOf(e: ActivityEntry): PageEntry {
  const entry: PageEntry = [e.request_id, e.key_id, e.actor, e.method, e.route, e.status, e.address, e.duration_ms, e.at];
  if (e.repeat_count !== undefined && e.repeat_count !== 1) entry.push(e.repeat_count);
  return entry;
}

/** A page's `entries` text. */
const encodeEntries = (entries: readonly ActivityEntry[]): string => JSON.stringify(entries.map(pageEntryOf));

/**
 * The entries of a page of `orgId`'s, as stored. Pages written before the entries were arrays
 * (the release that introduced pages) hold objects, which are read as they are.
 */
export function entriesOfPage(orgId: string, text: string): StoredActivityEntry[] {
  return (JSON.parse(text) as (PageEntry | ActivityEntry)[]).map((e) =>
    Array.isArray(e)
      ? { request_id: e[0], org_id: orgId, key_id: e[1], actor: e[2], method: e[3], route: e[4], status: e[5], address: e[6], duration_ms: e[7], at: e[8], repeat_count: e[9] ?? 1 }
      : { ...e, repeat_count: e.repeat_count ?? 1 },
  );
}

/**
 * Groups entries into pages, one per workspace (and per `maxPerPage` of its entries), each with
 * an id of its own: a page handed back after a failed write is written again as it is, and its
 * id makes a second write of it (a commit whose answer was lost) nothing.
 */
export function pagesOf(entries: readonly ActivityEntry[], maxPerPage = 500): ActivityPage[] {
  const byWorkspace = new Map<string, ActivityEntry[]>();
  for (const entry of entries) {
    const group = byWorkspace.get(entry.org_id);
    if (group) group.push(entry);
    else byWorkspace.set(entry.org_id, [entry]);
  }
  const pages: ActivityPage[] = [];
  for (const [orgId, group] of byWorkspace) {
    for (let from = 0; from < group.length; from += maxPerPage) {
      const slice = group.slice(from, from + maxPerPage);
      let first = slice[0]!.at;
      let last = first;
      for (const entry of slice) {
        if (entry.at < first) first = entry.at;
        if (entry.at > last) last = entry.at;
      }
      pages.push({ id: `act_${pageIds()}`, org_id: orgId, first_at: first, last_at: last, entry_count: slice.length, entries: encodeEntries(slice) });
    }
  }
  return pages;
}

/** Where a page of the newest entries starts: after this entry, in (at, request id) descending. */
export interface ActivityCursor {
  at: number;
  requestId: string;
}

/** Pages read at a time while gathering the newest entries. */
const PAGES_PER_READ = 16;

/** (at, request id) descending, request ids compared byte by byte (as both engines' queries do). */
const newestFirst = (a: StoredActivityEntry, b: StoredActivityEntry) => b.at - a.at || (a.request_id < b.request_id ? 1 : a.request_id > b.request_id ? -1 : 0);

/**
 * Activity entries: a change made by its route's handler writes its entry as a row of
 * `activity_entries`, keyed by request id, so an entry written twice (a batch delivered again by
 * an older release's worker) is one row; the entries the API held in memory (read calls', errors',
 * a second's refusals) and those of changes made through a batcher (api/http/together.ts, a batch
 * of one included) are pages, a row a workspace and flush or batch (`insertPages`). Both are
 * written once, and read together (`newest`).
 */
export function createActivityStore(sql: Sql) {
  // An entry that stands for one call carries no repeat_count.
  const read = (entry: ActivityEntry, field: string) => (field === "repeat_count" ? (entry.repeat_count ?? 1) : entry[field as keyof ActivityEntry]);
  const insertMany = insertRows(sql, "activity_entries", FIELDS, read, "ON CONFLICT (request_id) DO NOTHING");
  const insertPages = insertRows(sql, "activity_pages", PAGE_FIELDS, (page: ActivityPage, field) => page[field as keyof ActivityPage], "ON CONFLICT (id) DO NOTHING");

  const rows = sql.statement<StoredActivityEntry>(
    `SELECT ${FIELDS.join(", ")} FROM activity_entries
     WHERE org_id = $orgId AND (CAST($keyId AS TEXT) IS NULL OR key_id = $keyId)
       AND (CAST($beforeAt AS BIGINT) IS NULL OR at < $beforeAt OR (at = $beforeAt AND request_id COLLATE "C" < $beforeId))
     ORDER BY at DESC, request_id COLLATE "C" DESC LIMIT $limit`,
    { decode: decoder({ at: "number" }) },
  );
  // Newest pages first, by the newest entry each holds; ids break ties (a keyset over both).
  const pages = sql.statement<{ id: string; last_at: number; entries: string }>(
    `SELECT id, last_at, entries FROM activity_pages
     WHERE org_id = $orgId AND (CAST($beforeAt AS BIGINT) IS NULL OR first_at <= $beforeAt)
       AND (CAST($lastAt AS BIGINT) IS NULL OR last_at < $lastAt OR (last_at = $lastAt AND id COLLATE "C" < $lastId))
     ORDER BY last_at DESC, id COLLATE "C" DESC LIMIT $limit`,
    { decode: decoder({ last_at: "number" }) },
  );

  return {
    /** A change's entry, in its transaction: sent without waiting (`Statement.send`). */
    insert: (entry: ActivityEntry) => insertMany.send([entry]),
    insertMany: (entries: readonly ActivityEntry[]): Flow<void> => insertMany.send(entries),
    /** Pages of entries held in memory (`pagesOf`); one already stored is skipped. */
    insertPages: (list: readonly ActivityPage[]): Flow<void> => insertPages.send(list),
    /**
     * A workspace's newest entries (of one key, with `keyId`), after `before`, at most `limit`:
     * rows and pages read together, newest first. Pages are read newest first, a few at a time,
     * until the `limit`-th entry found is newer than the newest entry of the next page could be
     * (a page's `last_at`): no page left can hold one that belongs on the list.
     */
    *newest(orgId: string, keyId: string | null, before: ActivityCursor | null, limit: number): Flow<StoredActivityEntry[]> {
      const beforeAt = before?.at ?? null;
      const beforeId = before?.requestId ?? null;
      const found = yield* rows.all({ orgId, keyId, beforeAt, beforeId, limit });
      const belongs = (entry: ActivityEntry) =>
        (keyId === null || entry.key_id === keyId) && (before === null || entry.at < before.at || (entry.at === before.at && entry.request_id < before.requestId));
      let lastAt: number | null = null;
      let lastId: string | null = null;
      for (;;) {
        const batch: { id: string; last_at: number; entries: string }[] = yield* pages.all({ orgId, beforeAt, lastAt, lastId, limit: PAGES_PER_READ });
        for (const page of batch) {
          for (const entry of entriesOfPage(orgId, page.entries)) if (belongs(entry)) found.push(entry);
        }
        found.sort(newestFirst);
        if (found.length > limit) found.length = limit;
        if (batch.length < PAGES_PER_READ) return found;
        const last = batch[batch.length - 1]!;
        lastAt = last.last_at;
        lastId = last.id;
        if (found.length === limit && found[limit - 1]!.at > last.last_at) return found;
      }
    },
  };
}
