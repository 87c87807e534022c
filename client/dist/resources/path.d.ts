import type { Ref } from "../types.js";
/** A reference as one path segment: an `id` or a `display_id`, escaped. */
export declare const segment: (ref: Ref) => string;
