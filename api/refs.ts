/**
 * A reference made only of digits is a `display_id`; anything else is an `id`. Bodies may
 * also carry a `display_id` as a JSON integer. Lookups are always scoped to the caller's
 * workspace, so another workspace's record reads exactly like a missing one.
 */
export function findByRef<T>(
  ref: string | number,
  byId: (id: string) => T | undefined,
  byDisplayId: (displayId: number) => T | undefined,
): T | undefined {
  if (typeof ref === "number") return Number.isSafeInteger(ref) && ref > 0 ? byDisplayId(ref) : undefined;
  if (/^\d+$/.test(ref)) {
    const displayId = Number(ref);
    return Number.isSafeInteger(displayId) ? byDisplayId(displayId) : undefined;
  }
  return byId(ref);
}
