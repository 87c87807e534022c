/**
 * Public identifiers: a type prefix and a ULID body (`cus_01JD…`). The ULID starts with the
 * creation time in milliseconds; within one millisecond the random part is incremented instead
 * of drawn again, so ids made by one process sort by creation even within a millisecond.
 * Across processes, ids of the same millisecond are ordered by chance; the lists page by
 * `created_at`, never by id. 80 random bits keep processes from colliding without coordination.
 */
export type IdPrefix = "cus" | "con" | "onb" | "org" | "key" | "usr" | "req" | "evt" | "dlv" | "we" | "wha" | "ins";

/** Crockford's base 32, as the ULID specification writes it. */
const ENCODING = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const TIME_CHARS = 10;
const RANDOM_CHARS = 16;
const TIME_MAX = 2 ** 48 - 1;

/**
 * A monotonic ULID factory, written here rather than taken from the `ulid` package because
 * every request makes one (its request id): that package re-encodes the time and rebuilds the
 * random part character by character on every call (~1.5 µs); this one keeps the string of
 * all but the last character and appends one, so an id within a millisecond is one
 * concatenation. The output is the same format, checked against that package in the tests.
 */
export function monotonicUlid(random: (bytes: Uint8Array) => void = (bytes) => crypto.getRandomValues(bytes)) {
  const digits = new Uint8Array(RANDOM_CHARS); // the random part, one base-32 digit per byte
  let lastTime = -1;
  let head = ""; // the time and every random digit but the last, encoded

  const draw = () => {
    random(digits);
    for (let i = 0; i < RANDOM_CHARS; i++) digits[i] = digits[i]! & 31;
  };
  const encodeHead = (time: number) => {
    let text = "";
    for (let i = TIME_CHARS - 1, t = time; i >= 0; i--, t = Math.floor(t / 32)) text = ENCODING[t % 32] + text;
    for (let i = 0; i < RANDOM_CHARS - 1; i++) text += ENCODING[digits[i]!];
    head = text;
  };

  return function ulid(now: number = Date.now()): string {
    if (!Number.isInteger(now) || now < 0 || now > TIME_MAX) throw new RangeError(`A ULID's time must be a whole number of milliseconds from 0 to 2^48 - 1 (got ${now}).`);
    if (now > lastTime) {
      lastTime = now;
      draw();
      encodeHead(now);
    } else {
      // Same (or an earlier: the clock stepped back) millisecond: the last id plus one.
      let i = RANDOM_CHARS - 1;
      while (i >= 0 && digits[i] === 31) digits[i--] = 0;
      if (i < 0) {
        // 2^80 ids within one millisecond cannot happen by chance; move on to the next one.
        lastTime++;
        draw();
        encodeHead(lastTime);
      } else {
        digits[i] = digits[i]! + 1;
        if (i < RANDOM_CHARS - 1) encodeHead(lastTime);
      }
    }
    return head + ENCODING[digits[RANDOM_CHARS - 1]!];
  };
}

/** A monotonic ULID: strictly increasing within this process. */
export const ulid: (now?: number) => string = monotonicUlid();

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${ulid()}`;
}
