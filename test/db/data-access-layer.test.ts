import { describe, expect, test } from "bun:test";
import { Glob } from "bun";
import { readFileSync } from "node:fs";

/**
 * One data-access layer: every SQL statement of the API, the worker, the command line,
 * metrics and readiness lives in a store module (`*.store.ts`). Outside them, nothing
 * touches a driver, `$client`, a prepared statement or drizzle's query builder. The driver
 * layer itself (shared/db/client.ts, open.ts, postgres.ts, the SQLite WAL checkpointer, commit
 * watch and its header map, the turn's read snapshot, and reads kept until a commit) and the
 * schemas are the exceptions.
 */
const DRIVER_LAYER = new Set([
  "shared/db/client.ts",
  "shared/db/open.ts",
  "shared/db/postgres.ts",
  "shared/db/sql.ts",
  "shared/db/database.ts",
  "shared/db/wal-checkpointer.ts",
  "shared/db/wal-checkpointer.worker.ts",
  "shared/db/wal-commits.ts",
  "shared/db/shm-map.ts",
  "shared/db/turn-snapshot.ts",
  "shared/db/kept-until-commit.ts",
  "shared/db/schema.ts",
  "shared/db/schema.pg.ts",
]);

const FORBIDDEN: [RegExp, string][] = [
  [/\$client\b/, "$client"],
  [/\.prepare\s*[<(]/, "a prepared statement"],
  [/from "bun:sqlite"|from "bun"\s*;?\s*$.*\bSQL\b|\bnew SQL\(/m, "a driver"],
  [/from "drizzle-orm\/(bun-sqlite|bun-sql|postgres-js|node-postgres)/, "a drizzle driver"],
  [/\b(db|tx|sqlite|database)\s*\.\s*(select|selectDistinct|insert|update|delete|run|all|get|values|execute|query|exec)\s*\(/, "a query"],
  [/\bsql`/, "a raw SQL fragment"],
];

describe("the data-access layer", () => {
  test("no SQL, driver or $client outside store modules in api/, worker/, admin/, shared/ and scripts/", () => {
    const offences: string[] = [];
    for (const root of ["api", "worker", "admin", "shared", "scripts"]) {
      for (const file of new Glob(`${root}/**/*.{ts,tsx}`).scanSync(".")) {
        if (file.endsWith(".store.ts") || DRIVER_LAYER.has(file)) continue;
        const text = readFileSync(file, "utf8");
        for (const [pattern, what] of FORBIDDEN) {
          const line = text.split("\n").findIndex((l) => pattern.test(l));
          if (line >= 0) offences.push(`${file}:${line + 1} uses ${what}`);
        }
      }
    }
    expect(offences).toEqual([]);
  });

  test("each store is written once: no engine's twin of a store, and no store that names an engine's driver", () => {
    const twins = [...new Glob("{api,worker,admin,shared}/**/*.pg.store.ts").scanSync(".")];
    expect(twins).toEqual([]);
    const branching: string[] = [];
    for (const root of ["api", "worker", "admin", "shared"]) {
      for (const file of new Glob(`${root}/**/*.store.ts`).scanSync(".")) {
        if (file === "shared/db/copy.store.ts") continue; // copies one engine into the other: it names both on purpose
        const text = readFileSync(file, "utf8");
        if (/\bengine\s*===|drizzle-orm\/(pg-core|sqlite-core|bun-sql|bun-sqlite)|schema\.pg\.ts|\$client/.test(text)) branching.push(file);
      }
    }
    expect(branching).toEqual([]);
  });

  test("the check itself finds a statement written outside a store", () => {
    const [pattern] = FORBIDDEN[4]!;
    expect(pattern.test('const row = db.select().from(customers).get();')).toBe(true);
    expect(FORBIDDEN[0]![0].test("db.$client.query('SELECT 1')")).toBe(true);
  });
});
