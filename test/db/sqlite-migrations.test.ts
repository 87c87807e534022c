import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MIGRATIONS_FOLDER, openDatabase } from "../../shared/db/client.ts";

const dir = mkdtempSync(join(tmpdir(), "onboarding-migrations-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Tables and indexes as SQLite keeps them, to compare two databases' schemas. */
const schemaOf = (path: string) =>
  new Database(path, { readonly: true })
    .query("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name")
    .all();

describe("SQLite migrations in drizzle/sqlite/", () => {
  test("a database made before the move to drizzle/sqlite/ (migrations 0000-0004) opens without re-running any, data kept", () => {
    // Made by the code of main at 0004, with one workspace and one key, then gzipped.
    const path = join(dir, "before.sqlite");
    writeFileSync(path, Bun.gunzipSync(readFileSync(join(import.meta.dir, "../fixtures/sqlite-0004.sqlite.gz"))));
    const journal = JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, "meta/_journal.json"), "utf8")) as { entries: { when: number }[] };
    const before = new Database(path).query("SELECT hash, created_at FROM __drizzle_migrations ORDER BY id").all();
    expect(before).toHaveLength(5);

    const db = openDatabase(path);
    const after = db.$client.query("SELECT hash, created_at FROM __drizzle_migrations ORDER BY id").all();
    expect(after).toHaveLength(journal.entries.length);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(db.$client.query("SELECT slug FROM organizations").all()).toEqual([{ slug: "acme" }]);
    expect(db.$client.query("SELECT name FROM api_keys").all()).toEqual([{ name: "before-split" }]);
    db.$client.close();

    const fresh = join(dir, "fresh.sqlite");
    openDatabase(fresh).$client.close();
    expect(schemaOf(path)).toEqual(schemaOf(fresh));
  });

  test("processes that open one fresh file at the same moment all start, and each migration runs once", async () => {
    // `npm start` starts the API and the worker together on a file that does not exist yet.
    const path = join(dir, "together.sqlite");
    const go = join(dir, "together.go");
    const script = `
      import { existsSync } from "node:fs";
      import { openDatabase } from ${JSON.stringify(join(import.meta.dir, "../../shared/db/client.ts"))};
      while (!existsSync(${JSON.stringify(go)})) Bun.sleepSync(1);
      openDatabase(${JSON.stringify(path)}).$client.close();
    `;
    const processes = Array.from({ length: 6 }, () =>
      Bun.spawn([process.execPath, "-e", script], { stdout: "ignore", stderr: "pipe" }),
    );
    await Bun.sleep(500); // every process loaded and waiting
    writeFileSync(go, "");
    const results = await Promise.all(processes.map(async (p) => ({ code: await p.exited, stderr: await new Response(p.stderr).text() })));
    expect(results.filter((r) => r.code !== 0).map((r) => r.stderr.split("\n").filter((l) => /SQLiteError|Failed to run/.test(l)).join(" | ") || r.stderr)).toEqual([]);
    expect(existsSync(path)).toBe(true);
    const applied = new Database(path, { readonly: true }).query("SELECT count(*) AS n, count(DISTINCT hash) AS distinct_n FROM __drizzle_migrations").get() as { n: number; distinct_n: number };
    expect(applied.n).toBe(applied.distinct_n);
  });
});
