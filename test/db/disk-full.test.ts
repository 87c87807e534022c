import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import { testPostgresUrl } from "../support/postgres.ts";
import { createTestApp, type Engine, type TestApp } from "../support/test-app.ts";
import { storedActivity } from "../support/activity.ts";

/**
 * A full disk is a bad day, not a disaster: a database refusing to grow answers 503
 * `service_unavailable` with `Retry-After`, writes nothing half, readiness says `full`, and the
 * service recovers by itself once space is free. Each engine is filled for real:
 * - SQLite: `PRAGMA max_page_count` on the API's own connection (`SQLITE_FULL`).
 * - PostgreSQL: the test database's tables moved into a tablespace on a 4 MiB tmpfs, so the
 *   server's own writes fail with `53100 disk_full` ("No space left on device"); space is freed
 *   by remounting it larger. That needs root and a server on this machine (CI has both); elsewhere
 *   the PostgreSQL case is skipped and says why.
 */

interface Space {
  /** Leaves the database a few pages to grow in. */
  fill(t: TestApp): Promise<void>;
  /** Gives it room again. */
  free(t: TestApp): Promise<void>;
  close(): Promise<void>;
}

const sqliteSpace: Space = {
  async fill(t) {
    const sqlite = t.db.$client;
    const pages = (sqlite.query("PRAGMA page_count").get() as { page_count: number }).page_count;
    sqlite.exec(`PRAGMA max_page_count = ${pages + 3}`);
  },
  async free(t) {
    t.db.$client.exec("PRAGMA max_page_count = 1073741823");
  },
  async close() {},
};

/** Why PostgreSQL cannot be filled here, or undefined when it can. */
function postgresSpaceUnavailable(): string | undefined {
  const server = testPostgresUrl();
  if (!server) return "no PostgreSQL";
  if (!["127.0.0.1", "localhost", "[::1]"].includes(new URL(server).hostname)) return "PostgreSQL is not on this machine";
  if (process.getuid?.() !== 0) return "mounting a small file system needs root";
  if (spawnSync("id", ["-u", "postgres"]).status !== 0) return "no `postgres` system user owns the server";
  return undefined;
}

function sh(command: string, args: string[]): void {
  const result = spawnSync(command, args, { encoding: "utf8" });
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")}: ${result.stderr || result.error}`);
}

function postgresSpace(): Space {
  const dir = mkdtempSync(join(tmpdir(), "pg-full-"));
  const tablespace = `ts_full_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
  const admin = new SQL({ url: testPostgresUrl()!, max: 1, connectionTimeout: 3 });
  let mounted = false;
  let created = false;
  return {
    async fill(t) {
      sh("mount", ["-t", "tmpfs", "-o", "size=4m", "tmpfs", dir]);
      mounted = true;
      sh("chown", ["postgres:postgres", dir]);
      await admin.unsafe(`CREATE TABLESPACE ${tablespace} LOCATION '${dir}'`);
      created = true;
      // Every table and index of the test database (not the catalogs) moves onto the small disk.
      await t.query(`ALTER TABLE ALL IN TABLESPACE pg_default SET TABLESPACE ${tablespace}`);
      await t.query(`ALTER INDEX ALL IN TABLESPACE pg_default SET TABLESPACE ${tablespace}`);
    },
    async free() {
      sh("mount", ["-o", "remount,size=64m", dir]);
    },
    async close() {
      // The test database is dropped by the app's close; the tablespace is empty after that.
      if (created) await admin.unsafe(`DROP TABLESPACE IF EXISTS ${tablespace}`).catch(() => {});
      await admin.close();
      if (mounted) spawnSync("umount", [dir]);
      rmdirSync(dir);
    },
  };
}

const cases: { engine: Engine; skip?: string; space: () => Space }[] = [
  { engine: "sqlite", space: () => sqliteSpace },
  { engine: "postgres", skip: postgresSpaceUnavailable(), space: postgresSpace },
];

for (const { engine, skip, space: makeSpace } of cases) {
  if (skip) console.log(`[disk-full] the ${engine} case is skipped: ${skip}`);
  describe.skipIf(skip !== undefined)(`the database out of space (${engine})`, () => {
    let t: TestApp | undefined;
    let space: Space | undefined;
    afterAll(async () => {
      await t?.close();
      await space?.close();
    });

    test("writes answer 503 with Retry-After and keep nothing half; readiness says full; space freed, both recover", async () => {
      t = await createTestApp({ engine });
      space = makeSpace();
      await space.fill(t);
      // Random text does not compress, so each customer really takes its room.
      const filler = () => Buffer.from(crypto.getRandomValues(new Uint8Array(1500))).toString("hex");
      const created: string[] = [];
      let refused: Awaited<ReturnType<TestApp["call"]>> | undefined;
      for (let i = 0; i < 2000 && !refused; i++) {
        const r = await t.call("POST", "/api/v1/customers", { body: { name: `Space ${i}`, metadata: { filler: filler() } } });
        if (r.status === 201) created.push(r.body.id);
        else refused = r;
      }
      expect(refused?.status).toBe(503);
      expect((refused!.body as { error: unknown }).error).toEqual({ type: "internal_error", code: "service_unavailable", message: "The database is out of space. Retry after 30 s." });
      expect(refused!.headers.get("retry-after")).toBe("30");

      // Nothing half: every customer answered 201 is there with its activity entry, no other.
      expect(await t.count("customers", "name LIKE 'Space %'")).toBe(created.length);
      expect(await t.count("activity_entries", "method = 'POST' AND status = 201 AND route = '/api/v1/customers'")).toBeGreaterThanOrEqual(created.length);

      const ready = await t.call("GET", "/api/v1/health/ready", { key: null });
      expect({ status: ready.status, database: ready.body.checks.database }).toEqual({ status: 503, database: "full" });

      await space.free(t);
      const after = await t.call("POST", "/api/v1/customers", { body: { name: "Space after", metadata: { filler: filler() } } });
      expect(after.status).toBe(201);
      // The refused call has its activity entry too (every authenticated call has one), written
      // by the flush once there is room: the change's transaction that would have carried it
      // rolled back.
      await t.activity.drain();
      const refusedId = refused!.headers.get("request-id")!;
      const entries = await storedActivity(t, (e) => e.request_id === refusedId);
      expect(entries.map((e) => e.status)).toEqual([503]);
      const readyAgain = await t.call("GET", "/api/v1/health/ready", { key: null });
      expect({ status: readyAgain.status, database: readyAgain.body.checks.database }).toEqual({ status: 200, database: "ok" });
    });
  });
}
