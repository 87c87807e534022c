/** A reference as one path segment: an `id` or a `display_id`, escaped. */
export const segment = (ref) => {
    const text = String(ref);
    if (text === "")
        throw new TypeError("a reference must not be empty");
    return encodeURIComponent(text);
};
