import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase, PAGE_CACHE_KIB } from "../../shared/db/client.ts";

const dir = mkdtempSync(join(tmpdir(), "onboarding-connection-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a SQLite connection as the service opens it", () => {
  test("WAL, foreign keys on, NORMAL sync, the busy timeout asked for and a 64 MiB page cache", () => {
    const db = openDatabase(join(dir, "settings.sqlite"), { busyTimeoutMs: 0 });
    const pragma = (name: string) => Object.values(db.$client.query(`PRAGMA ${name}`).get() as Record<string, unknown>)[0];
    try {
      expect(pragma("journal_mode")).toBe("wal");
      expect(pragma("foreign_keys")).toBe(1);
      expect(pragma("synchronous")).toBe(1); // NORMAL
      expect(pragma("busy_timeout")).toBe(0);
      expect(PAGE_CACHE_KIB).toBe(64 * 1024);
      expect(pragma("cache_size")).toBe(-PAGE_CACHE_KIB); // negative: KiB, not pages
    } finally {
      db.$client.close();
    }
  });
});
