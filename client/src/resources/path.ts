import type { Ref } from "../types.js";

/** A reference as one path segment: an `id` or a `display_id`, escaped. */
export const segment = (ref: Ref): string => {
  const text = String(ref);
  if (text === "") throw new TypeError("a reference must not be empty");
  return encodeURIComponent(text);
};
