/**
 * A reference made only of digits is a `display_id`; anything else is an `id`. Bodies may
 * also carry a `display_id` as a JSON integer. Lookups are always scoped to the caller's
 * workspace, so another workspace's record reads exactly like a missing one.
 */
export function findByRef<R>(ref: string | number, byId: (id: string) => R, byDisplayId: (displayId: number) => R): R | undefined {
  if (typeof ref === "number") return Number.isSafeInteger(ref) && ref > 0 ? byDisplayId(ref) : undefined;
  if (/^\d+$/.test(ref)) {
    const displayId = Number(ref);
    return Number.isSafeInteger(displayId) ? byDisplayId(displayId) : undefined;
  }
  return byId(ref);
}
