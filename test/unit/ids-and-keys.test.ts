import { createHash } from "node:crypto";
import { describe, expect, test } from "bun:test";
import { generateApiKey, hashApiKey, KEY_PATTERN } from "../../shared/api-keys.ts";
import { decodeTime, isValid } from "ulid";
import { monotonicUlid, newId } from "../../shared/ids.ts";
import { parseAuthorization } from "../../api/auth/authenticate.ts";

describe("ids", () => {
  test("prefixed, URL-safe, 26-character ULID bodies that sort by creation", async () => {
    const a = newId("cus");
    await Bun.sleep(2);
    const b = newId("cus");
    expect(a).toMatch(/^cus_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(a < b).toBe(true);
    expect(new Set(Array.from({ length: 1000 }, () => newId("onb"))).size).toBe(1000);
  });

  test("strictly increasing within one millisecond", () => {
    const ids = Array.from({ length: 5000 }, () => newId("onb"));
    expect(ids.every((id, i) => i === 0 || ids[i - 1]! < id)).toBe(true);
  });

  // The `ulid` package is the reference the hand-written factory is checked against.
  test("valid ULIDs whose time decodes to the millisecond they were made in", () => {
    const ulid = monotonicUlid();
    for (const at of [0, 1, 1_700_000_000_123, Date.now(), 2 ** 48 - 1]) {
      const id = ulid(at);
      expect(isValid(id)).toBe(true);
      expect(decodeTime(id)).toBe(at);
    }
    for (const bad of [-1, 1.5, Number.NaN, 2 ** 48]) expect(() => ulid(bad)).toThrow(RangeError);
  });

  test("within a millisecond the last id plus one, carried through digits at their top", () => {
    // Random bytes whose low five bits are 31 except the first digit: the first increment carries through 15 digits.
    const ulid = monotonicUlid((bytes) => bytes.fill(0xff).fill(0x02, 0, 1));
    const first = ulid(1_000);
    expect(first.slice(10)).toBe("2ZZZZZZZZZZZZZZZ");
    expect(ulid(1_000).slice(10)).toBe("3000000000000000");
    expect(ulid(1_000).slice(10)).toBe("3000000000000001");
    expect(decodeTime(ulid(1_000))).toBe(1_000);
  });

  test("still increasing when the clock steps back, and past the last id of a millisecond", () => {
    const ulid = monotonicUlid((bytes) => bytes.fill(0xff));
    const atTop = ulid(5_000); // the largest id of millisecond 5000
    const next = ulid(4_000); // the clock stepped back: no id of 5000 is left, so one of 5001
    expect(atTop.slice(10)).toBe("ZZZZZZZZZZZZZZZZ");
    expect(next > atTop).toBe(true);
    expect(decodeTime(next)).toBe(5_001);
    const ids = Array.from({ length: 3000 }, (_, i) => ulid(5_001 - (i % 3)));
    expect(ids.every((id, i) => (i === 0 ? id > next : ids[i - 1]! < id))).toBe(true);
  });
});

describe("API keys", () => {
  test("live and test keys have their prefixes, 40 base62 characters and a 12-character visible prefix", () => {
    const live = generateApiKey("live");
    const test = generateApiKey("test");
    expect(live.key).toMatch(/^svc_[0-9A-Za-z]{40}$/);
    expect(test.key).toMatch(/^svc_test_[0-9A-Za-z]{40}$/);
    expect(KEY_PATTERN.test(live.key) && KEY_PATTERN.test(test.key)).toBe(true);
    expect(live.prefix).toBe(live.key.slice(0, 12));
    expect(live.hash).toBe(hashApiKey(live.key));
    expect(live.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  test("a key's hash is its SHA-256 in lowercase hex, as every earlier version stored it", () => {
    expect(hashApiKey("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const key = generateApiKey("test").key;
    expect(hashApiKey(key)).toBe(createHash("sha256").update(key).digest("hex"));
  });

  test("the Authorization header rules", () => {
    const key = generateApiKey("live").key;
    expect(parseAuthorization(`Bearer ${key}`)).toBe(key);
    expect(parseAuthorization(`bearer ${key}`)).toBe(key);
    expect(parseAuthorization(`BEARER ${key}`)).toBe(key);
    const code = (header: string | null) => {
      try {
        parseAuthorization(header);
        return "ok";
      } catch (error) {
        return (error as { code: string }).code;
      }
    };
    expect(code(null)).toBe("missing_api_key");
    expect(code("")).toBe("missing_api_key");
    expect(code(key)).toBe("malformed_authorization_header");
    expect(code(`Bearer: ${key}`)).toBe("malformed_authorization_header");
    expect(code(`Bearer:${key}`)).toBe("malformed_authorization_header");
    expect(code(`Bearer  ${key}`)).toBe("malformed_authorization_header");
    expect(code(`Bearer ${key} `)).toBe("malformed_authorization_header");
    expect(code(`Bearer ${key}\t`)).toBe("malformed_authorization_header");
    expect(code(`Token ${key}`)).toBe("malformed_authorization_header");
  });
});
