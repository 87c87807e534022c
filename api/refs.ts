import type { Flow } from "../shared/db/flow.ts";

/**
 * A reference made only of digits is a `display_id`; anything else is an `id`. Bodies may
 * also carry a `display_id` as a JSON integer. Lookups are always scoped to the caller's
 * workspace, so another workspace's record reads exactly like a missing one.
 */
/** Whether a reference names a record by its `display_id` (digits, or a JSON integer) rather than its `id`. */
export const isDisplayIdRef = (ref: string | number): boolean => typeof ref === "number" || /^\d+$/.test(ref);

/**
 * The number a `display_id` reference names ("007" names 7), or undefined where no record can
 * have it (0, or past 2^53). Only for references `isDisplayIdRef` accepts.
 */
export function displayIdOf(ref: string | number): number | undefined {
  const displayId = Number(ref);
  return Number.isSafeInteger(displayId) && displayId > 0 ? displayId : undefined;
}

export function* findByRef<R>(
  ref: string | number,
  byId: (id: string) => Flow<R | undefined>,
  byDisplayId: (displayId: number) => Flow<R | undefined>,
): Flow<R | undefined> {
  if (typeof ref === "string" && !isDisplayIdRef(ref)) return yield* byId(ref);
  const displayId = displayIdOf(ref);
  return displayId === undefined ? undefined : yield* byDisplayId(displayId);
}
