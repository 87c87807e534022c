import type { Flow } from "../shared/db/flow.ts";

/**
 * A reference made only of digits is a `display_id`; anything else is an `id`. Bodies may
 * also carry a `display_id` as a JSON integer. Lookups are always scoped to the caller's
 * workspace, so another workspace's record reads exactly like a missing one.
 */
/** Whether a reference names a record by its `display_id` (digits, or a JSON integer) rather than its `id`. */
export const isDisplayIdRef = (ref: string | number): boolean => typeof ref === "number" || /^\d+$/.test(ref);

export function* findByRef<R>(
  ref: string | number,
  byId: (id: string) => Flow<R | undefined>,
  byDisplayId: (displayId: number) => Flow<R | undefined>,
): Flow<R | undefined> {
  if (typeof ref === "number") return Number.isSafeInteger(ref) && ref > 0 ? yield* byDisplayId(ref) : undefined;
  if (isDisplayIdRef(ref)) {
    const displayId = Number(ref);
    return Number.isSafeInteger(displayId) ? yield* byDisplayId(displayId) : undefined;
  }
  return yield* byId(ref);
}
