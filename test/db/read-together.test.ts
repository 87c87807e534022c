import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { run, step, type Flow } from "../../shared/db/flow.ts";
import { READ_TOGETHER_MAX } from "../../shared/db/sql.ts";
import { createTestApp, testEngine, type TestApp } from "../support/test-app.ts";

/**
 * Lookups made together (`Sql.readTogether`): on PostgreSQL the lookups of one moment outside a
 * transaction share one statement, and each answers its own row; inside a transaction, and on
 * SQLite, each is its own statement. On both engines (npm test runs this suite on each).
 */
let t: TestApp;
let orgs: string[];
beforeAll(async () => {
  t = await createTestApp();
  orgs = (await t.query<{ id: string }>("SELECT id FROM organizations ORDER BY id")).map((row) => row.id);
});
afterAll(() => t.close());

type Params = { orgId: string; id: string };
type Row = { id: string; orgId: string };

/** A lookup of organizations by id, with counters of the statements each path ran. */
function countedLookup(options: { failMany?: () => "later" | "at once" | false } = {}) {
  const { sql } = t.database;
  const one = sql.statement<Row>(`SELECT id, id AS "orgId" FROM organizations WHERE id = $orgId AND id = $id`);
  const many = sql.statement<Row>(`SELECT id, id AS "orgId" FROM organizations WHERE ${sql.oneOf("id", "ids")}`);
  const counts = { one: 0, many: [] as number[] };
  const lookup = sql.readTogether(
    (p: Params): Flow<Row | undefined> => {
      counts.one++;
      return one.get(p);
    },
    function* (ps): Flow<Row[]> {
      counts.many.push(ps.length);
      const failure = options.failMany?.();
      if (failure === "at once") throw new Error("the statement was refused at once");
      if (failure === "later") return yield* step(() => Promise.reject(new Error("the statement failed")));
      return yield* many.all({ ids: JSON.stringify(ps.map((p) => p.id)) });
    },
    (row, p) => row.id === p.id && row.orgId === p.orgId,
  );
  return { lookup, counts };
}

const at = (i: number) => orgs[i % orgs.length]!;

describe("lookups made together (Sql.readTogether)", () => {
  test("lookups of one moment each answer their own row, or nothing for a row they may not see", async () => {
    const { lookup, counts } = countedLookup();
    const asked: Params[] = [
      ...orgs.map((id) => ({ orgId: id, id })),
      { orgId: at(0), id: at(1) }, // another scope's row: read in the same statement, not answered
      { orgId: at(0), id: "org_missing" },
    ];
    const answers = await Promise.all(asked.map((p) => run(lookup(p))));
    expect(answers).toEqual([...orgs.map((id) => ({ id, orgId: id })), undefined, undefined]);
    if (testEngine() === "postgres") {
      expect(counts).toEqual({ one: 0, many: [asked.length] });
    } else {
      expect(counts).toEqual({ one: asked.length, many: [] });
    }
  });

  test.skipIf(testEngine() !== "postgres")(`on PostgreSQL, at most ${READ_TOGETHER_MAX} lookups share a statement, and later moments send their own`, async () => {
    const { lookup, counts } = countedLookup();
    const n = READ_TOGETHER_MAX * 2 + 3;
    const first = await Promise.all(Array.from({ length: n }, (_, i) => run(lookup({ orgId: at(i), id: at(i) }))));
    expect(first.map((row) => row?.id)).toEqual(Array.from({ length: n }, (_, i) => at(i)));
    expect(counts.many).toEqual([READ_TOGETHER_MAX, READ_TOGETHER_MAX, 3]);
    expect(await run(lookup({ orgId: at(0), id: at(0) }))).toEqual({ id: at(0), orgId: at(0) });
    expect(counts.many).toEqual([READ_TOGETHER_MAX, READ_TOGETHER_MAX, 3, 1]);
  });

  test.skipIf(testEngine() !== "postgres")("on PostgreSQL, a failed statement fails each lookup of its moment, and the next moment's are answered", async () => {
    let fail: "later" | "at once" | false = "later";
    const { lookup } = countedLookup({ failMany: () => fail });
    const failed = await Promise.allSettled([0, 1, 2].map((i) => run(lookup({ orgId: at(i), id: at(i) }))));
    expect(failed.map((r) => r.status)).toEqual(["rejected", "rejected", "rejected"]);
    expect(failed.map((r) => (r as PromiseRejectedResult).reason.message)).toEqual(Array(3).fill("the statement failed"));
    // A failure before any statement went out reaches each caller too: none is left waiting.
    fail = "at once";
    const refused = await Promise.allSettled([0, 1].map((i) => run(lookup({ orgId: at(i), id: at(i) }))));
    expect(refused.map((r) => (r as PromiseRejectedResult).reason?.message)).toEqual(Array(2).fill("the statement was refused at once"));
    fail = false;
    expect(await run(lookup({ orgId: at(1), id: at(1) }))).toEqual({ id: at(1), orgId: at(1) });
  });

  test("inside a transaction each lookup is its own statement (it may lock its row)", async () => {
    const { lookup, counts } = countedLookup();
    const answers = await run(
      t.database.transaction(function* () {
        const a = yield* lookup({ orgId: at(0), id: at(0) });
        const b = yield* lookup({ orgId: at(1), id: at(0) });
        return [a, b];
      }),
    );
    expect(answers).toEqual([{ id: at(0), orgId: at(0) }, undefined]);
    expect(counts).toEqual({ one: 2, many: [] });
  });
});
