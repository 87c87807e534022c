import { describe, expect, test } from "bun:test";
import { formatMicros, parseDateTimeMicros } from "../../shared/clock.ts";

describe("datetimes", () => {
  test("format is UTC with six fractional digits and round-trips", () => {
    const micros = Date.UTC(2026, 10, 22, 10, 15, 30, 123) * 1000 + 456;
    expect(formatMicros(micros)).toBe("2026-11-22T10:15:30.123456Z");
    expect(parseDateTimeMicros(formatMicros(micros))).toBe(micros);
  });

  test("format agrees with Date#toISOString across centuries, leap days and epochs", () => {
    // Microseconds are exact in a double up to ±2^53 µs (years 1685 to 2255).
    const samples = [0, 951_782_400_000, 951_868_799_999, 4_107_542_399_999, -1, -2_208_988_800_000, 8_000_000_000_000];
    for (let i = 0; i < 2000; i++) samples.push(Math.floor((Math.random() * 2 - 1) * 8e12));
    for (const ms of samples) {
      const micros = ms * 1000 + 789;
      expect(formatMicros(micros)).toBe(new Date(ms).toISOString().replace("Z", "789Z"));
    }
  });

  test("parse accepts RFC 3339 with Z or an offset, any fraction", () => {
    const base = Date.UTC(2026, 10, 22, 10, 15, 30) * 1000;
    expect(parseDateTimeMicros("2026-11-22T10:15:30Z")).toBe(base);
    expect(parseDateTimeMicros("2026-11-22T12:15:30+02:00")).toBe(base);
    expect(parseDateTimeMicros("2026-11-22T10:15:30.5Z")).toBe(base + 500_000);
    expect(parseDateTimeMicros("2026-11-22t10:15:30z")).toBe(base);
  });

  test("sub-microsecond digits round up (a cursor is an exclusive upper bound)", () => {
    const base = Date.UTC(2026, 10, 22, 10, 15, 30) * 1000;
    expect(parseDateTimeMicros("2026-11-22T10:15:30.000001000Z")).toBe(base + 1);
    expect(parseDateTimeMicros("2026-11-22T10:15:30.000001001Z")).toBe(base + 2);
  });

  test("parse refuses what is not a datetime", () => {
    for (const bad of ["", "2026-11-22", "2026-11-22T10:15Z", "2026-11-22 10:15:30Z", "2026-02-29T00:00:00Z", "2026-11-22T24:00:00Z", "2026-11-22T10:15:30", "2026-11-22T10:15:30+25:00", "1700000000"]) {
      expect(`${bad} → ${parseDateTimeMicros(bad)}`).toBe(`${bad} → null`);
    }
    expect(parseDateTimeMicros("2028-02-29T00:00:00Z")).not.toBeNull();
  });
});

describe("formatMicros against Date", () => {
  // Microsecond integers stay exact below 2^53 (the year 2255): the range tested.
  test("agrees with Date#toISOString for instants across centuries, day boundaries and leap days, in any order", () => {
    const instants = [0, 951_782_400_000, 951_868_799_999, 4_107_542_400_000, 1_795_374_624_583, 7_258_118_399_999, -86_400_000];
    for (let i = 0; i < 2_000; i++) instants.push(Math.floor(Math.random() * 8_000_000_000_000) - 1_000_000_000_000);
    for (const ms of instants) {
      const micros = ms * 1000 + (ms % 997 + 997) % 997; // some microseconds past the millisecond
      const iso = new Date(ms).toISOString(); // 2000-02-29T00:00:00.000Z
      expect(formatMicros(micros)).toBe(`${iso.slice(0, 23)}${String(micros - ms * 1000).padStart(3, "0")}Z`);
    }
  });
});
