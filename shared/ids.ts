/**
 * Public identifiers: a type prefix and a ULID body (`cus_01JD…`). ULIDs start with the
 * creation time, so ids sort by creation, and carry 80 random bits, so they never collide
 * across processes without coordination.
 */
export type IdPrefix = "cus" | "con" | "onb" | "org" | "key" | "usr" | "req" | "dlv";

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const random = new Uint8Array(10);

export function ulid(nowMs = Date.now()): string {
  let out = "";
  let time = nowMs;
  for (let i = 0; i < 10; i++) {
    out = CROCKFORD[time % 32] + out;
    time = Math.floor(time / 32);
  }
  crypto.getRandomValues(random);
  // 80 random bits as 16 base32 characters: take the bytes 5 bits at a time.
  let bits = 0;
  let acc = 0;
  for (const byte of random) {
    acc = (acc << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += CROCKFORD[(acc >> bits) & 31];
    }
    acc &= (1 << bits) - 1;
  }
  return out;
}

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${ulid()}`;
}
