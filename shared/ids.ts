import { monotonicFactory } from "ulid";

/**
 * Public identifiers: a type prefix and a ULID body (`cus_01JD…`). The ULID starts with the
 * creation time in milliseconds; within one millisecond the monotonic factory increments the
 * random part instead of drawing a new one, so ids made by one process sort by creation even
 * within a millisecond. Across processes, ids of the same millisecond are ordered by chance;
 * the lists page by `created_at`, never by id. 80 random bits keep processes from colliding
 * without coordination.
 */
export type IdPrefix = "cus" | "con" | "onb" | "org" | "key" | "usr" | "req" | "dlv";

/** A monotonic ULID: strictly increasing within this process. */
export const ulid: (seedTimeMs?: number) => string = monotonicFactory();

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${ulid()}`;
}
