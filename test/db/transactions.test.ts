import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { run, use } from "../../shared/db/flow.ts";
import { insertRows } from "../../shared/db/sql.ts";
import { createOnboardingStore } from "../../api/onboardings/onboardings.store.ts";
import { createTestApp, testEngine, type TestApp } from "../support/test-app.ts";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const sequences = () => t.query("SELECT kind, last_display_id FROM sequences ORDER BY kind");
const orgId = async () => (await t.query<{ id: string }>("SELECT id FROM organizations WHERE slug = 'acme'"))[0]!.id;

describe("write transactions", () => {
  test("a store call nobody drives (a forgotten `yield*`) does nothing, on either engine", async () => {
    const org = await orgId();
    const before = await t.count("outbox");
    const { outbox } = t.services;
    await run(
      t.database.transaction(function* () {
        outbox.add(org, "records", "activity.batch", { entries: [] }, 1); // not driven: no statement runs
      }),
    );
    expect(await t.count("outbox")).toBe(before);
    await run(t.database.transaction(() => outbox.add(org, "records", "activity.batch", { entries: [] }, 1)));
    expect(await t.count("outbox")).toBe(before + 1);
  });

  test("whether a change wrote is counted by the stores, in its own transaction only", async () => {
    const org = await orgId();
    const { outbox } = t.services;
    const counted = await run(
      t.database.transaction(function* () {
        const before = t.database.writes();
        yield* outbox.add(org, "records", "activity.batch", { entries: [] }, 1);
        const afterOne = t.database.writes() - before;
        yield* outbox.add(org, "records", "activity.batch", { entries: [] }, 2);
        return { afterOne, afterTwo: t.database.writes() - before };
      }),
    );
    expect(counted).toEqual({ afterOne: 1, afterTwo: 2 });
  });

  test("a failure after writes rolls every write back, including the display-id sequence", async () => {
    const org = await orgId();
    const onboardingsBefore = await t.count("onboardings");
    const outboxBefore = await t.count("outbox");
    const sequencesBefore = await sequences();
    const { nextSequence, outbox } = t.services;

    await expect(
      (async () =>
        run(
          t.database.transaction(function* () {
            const seq = yield* nextSequence(org, "onboarding", 1);
            yield* outbox.add(org, "records", "activity.batch", { entries: [] }, 1);
            expect(seq.displayId).toBeGreaterThan(0);
            throw new Error("boom after the writes");
          }),
        ))(),
    ).rejects.toThrow("boom after the writes");

    expect(await t.count("onboardings")).toBe(onboardingsBefore);
    expect(await t.count("outbox")).toBe(outboxBefore);
    expect(await sequences()).toEqual(sequencesBefore);
  });

  test.skipIf(testEngine() !== "sqlite")("on SQLite, a transaction whose flow waits on a promise is refused and rolled back", async () => {
    const org = await orgId();
    const before = await t.count("outbox");
    const { outbox } = t.services;
    expect(() =>
      run(
        t.database.transaction(function* () {
          yield* outbox.add(org, "records", "activity.batch", { entries: [] }, 1);
          yield* use(Promise.resolve()); // another request's statements could run here: refused
        }),
      ),
    ).toThrow("must answer synchronously");
    expect(await t.count("outbox")).toBe(before);
  });

  test.skipIf(testEngine() !== "postgres")("on PostgreSQL, a transaction that waits between writes is invisible to other requests, and leaves nothing when it fails", async () => {
    const org = await orgId();
    const before = await t.count("outbox");
    const { outbox } = t.services;
    let seenMeanwhile = -1;
    await expect(
      (async () =>
        run(
          t.database.transaction(function* () {
            yield* outbox.add(org, "records", "activity.batch", { entries: [] }, 1);
            // Another request reads while this transaction waits between its writes.
            seenMeanwhile = yield* use(t.count("outbox"));
            yield* use(Bun.sleep(20));
            yield* outbox.add(org, "records", "activity.batch", { entries: [] }, 2);
            throw new Error("boom between requests");
          }),
        ))(),
    ).rejects.toThrow("boom between requests");
    expect(seenMeanwhile).toBe(before);
    expect(await t.count("outbox")).toBe(before);
  });

  test.skipIf(testEngine() !== "postgres")("on PostgreSQL, a statement that fails and is caught leaves its transaction aborted: the commit fails, nothing commits", async () => {
    const org = await orgId();
    const outboxBefore = await t.count("outbox");
    const duplicate = t.database.sql.statement("INSERT INTO sequences (org_id, kind, last_display_id, last_created_at) VALUES ($orgId, 'contact', 1, 1)");
    const { outbox } = t.services;
    const outcome = await (async () =>
      run(
        t.database.transaction(function* () {
          yield* outbox.add(org, "records", "activity.batch", { entries: [] }, 1);
          try {
            yield* duplicate.run({ orgId: org });
            yield* duplicate.run({ orgId: org });
          } catch {
            // The server has aborted the transaction: going on cannot make it commit.
          }
          return "went on";
        }),
      ))().then(
      (value) => value,
      (error: Error) => `failed: ${error.message}`,
    );
    expect(outcome).toMatch(/^failed: /);
    expect(await t.count("outbox")).toBe(outboxBefore);
  });

  test("a write sent without waiting that fails fails its whole transaction with its own error, and nothing commits", async () => {
    const org = await orgId();
    const outboxBefore = await t.count("outbox");
    const duplicate = t.database.sql.statement("INSERT INTO sequences (org_id, kind, last_display_id, last_created_at) VALUES ($orgId, 'onboarding', 1, 1)");
    const { outbox } = t.services;
    let wentOn = false;
    const failure = await Promise.resolve()
      .then(() =>
        run(
          t.database.transaction(function* () {
            yield* outbox.add(org, "records", "activity.batch", { entries: [] }, 1);
            // The second (if not the first) is refused by the primary key (org_id, kind).
            yield* duplicate.send({ orgId: org });
            yield* duplicate.send({ orgId: org });
            wentOn = true; // on PostgreSQL the refusal is not known yet; on SQLite it throws here
            yield* outbox.add(org, "records", "activity.batch", { entries: [] }, 2);
          }),
        ),
      )
      .then(
        () => null,
        (error: unknown) => error as { code?: string; errno?: string; message: string },
      );
    expect(failure).not.toBeNull();
    // The cause is the refused INSERT itself, not "current transaction is aborted" from a later statement.
    expect(String(failure!.message)).toMatch(/UNIQUE|unique|duplicate/);
    expect(wentOn).toBe(testEngine() === "postgres");
    expect(await t.count("outbox")).toBe(outboxBefore);
  });

  test("a nested transaction that fails fails the one around it, even caught: nothing of either commits", async () => {
    const org = await orgId();
    const outboxBefore = await t.count("outbox");
    const { outbox } = t.services;
    let caught = "";
    // SQLite answers synchronously (a throw), PostgreSQL with a promise: both become a promise here.
    const outcome = await (async () =>
      run(
        t.database.transaction(function* () {
          yield* outbox.add(org, "records", "activity.batch", { entries: [] }, 1);
          try {
            yield* t.database.transaction(function* () {
              yield* outbox.add(org, "records", "activity.batch", { entries: [] }, 2);
              throw new Error("inner refused");
            });
          } catch (error) {
            caught = (error as Error).message;
          }
          return "went on";
        }),
      ))().then(
      (value) => value,
      (error: Error) => `failed: ${error.message}`,
    );
    expect(caught).toBe("inner refused");
    expect(outcome).toBe("failed: inner refused");
    expect(await t.count("outbox")).toBe(outboxBefore);
  });

  test("a nested transaction that succeeds commits with the one around it", async () => {
    const org = await orgId();
    const outboxBefore = await t.count("outbox");
    const { outbox } = t.services;
    await run(
      t.database.transaction(function* () {
        yield* outbox.add(org, "records", "activity.batch", { entries: [] }, 1);
        yield* t.database.transaction(function* () {
          yield* outbox.add(org, "records", "activity.batch", { entries: [] }, 2);
        });
      }),
    );
    expect(await t.count("outbox")).toBe(outboxBefore + 2);
  });

  test("a request refused half-way leaves nothing behind (taken slug on create)", async () => {
    await t.call("POST", "/api/v1/customers", { body: { name: "Taken", slug: "taken" } });
    const customersBefore = await t.count("customers");
    const sequenceBefore = await t.query("SELECT last_display_id FROM sequences WHERE kind = 'customer'");
    const refused = await t.call("POST", "/api/v1/customers", { body: { name: "Again", slug: "taken" } });
    expect(refused.status).toBe(409);
    expect(await t.count("customers")).toBe(customersBefore);
    expect(await t.query("SELECT last_display_id FROM sequences WHERE kind = 'customer'")).toEqual(sequenceBefore);
  });
});

describe("rows written together (insertRows)", () => {
  // 100 rows: on PostgreSQL chunks of 64, 32 and 4 (each size's statement binds its values by
  // position); on SQLite 100 one-row statements. The actor column's SQL uses the route's
  // parameter, which thus first appears before the method's: values bound in plain column
  // order would land in the wrong columns. The route's uses the method's again: a parameter
  // that appears twice is bound once, at its first place.
  const COLUMNS = ["request_id", "org_id", "key_id", "actor", "method", "route", "status", "address", "duration_ms", "at"];
  type Entry = Record<(typeof COLUMNS)[number], string | number | null | undefined>;
  const entries = (org: string, tag: string, count: number): Entry[] =>
    Array.from({ length: count }, (_, i) => ({
      request_id: `req_${tag}_${String(i).padStart(3, "0")}`,
      org_id: org,
      key_id: `key_${i % 7}`,
      actor: `actor ${i}`,
      method: i % 2 ? "GET" : "POST",
      route: `/r/${i}`,
      status: 200 + i,
      address: i % 3 ? `10.0.0.${i}` : i % 2 ? null : undefined,
      duration_ms: i / 4,
      at: 1_000_000 + i,
    }));
  const rowsOf = (tag: string) =>
    t.query<Record<string, unknown>>(`SELECT request_id, key_id, actor, method, route, status, address, duration_ms, at FROM activity_entries WHERE request_id LIKE 'req_${tag}_%' ORDER BY request_id`);
  const expected = (written: Entry[]) =>
    written.map((e) => ({ request_id: e.request_id, key_id: e.key_id, actor: `${e.actor}${e.route}`, method: e.method, route: `${e.method}${e.route}`, status: e.status, address: e.address ?? null, duration_ms: e.duration_ms, at: e.at }));
  const normal = (rows: Record<string, unknown>[]): Record<string, unknown>[] => rows.map((r) => ({ ...r, status: Number(r.status), duration_ms: Number(r.duration_ms), at: Number(r.at) }));

  test("land whole at every chunk size, each value in its column, sent or awaited, on either engine", async () => {
    const org = await orgId();
    const write = insertRows(t.database.sql, "activity_entries", COLUMNS, (row: Entry, column) => row[column], "", (column, param, i) =>
      column === "actor" ? `(${param} || $route_${i})` : column === "route" ? `($method_${i} || ${param})` : param,
    );
    const awaited = entries(org, "awaited", 100);
    expect(await run(t.database.transaction(() => write(awaited)))).toBe(100);
    expect(normal(await rowsOf("awaited"))).toEqual(expected(awaited));

    const sent = entries(org, "sent", 37);
    await run(t.database.transaction(() => write.send(sent)));
    expect(normal(await rowsOf("sent"))).toEqual(expected(sent));
  });

  test("a row refused by the table fails its transaction, and nothing of the batch is written", async () => {
    const org = await orgId();
    const write = insertRows(t.database.sql, "activity_entries", COLUMNS, (row: Entry, column) => row[column]);
    const batch = entries(org, "refused", 70);
    batch[66]!.request_id = batch[3]!.request_id; // the primary key, twice
    await expect((async () => run(t.database.transaction(() => write.send(batch))))()).rejects.toThrow(/UNIQUE|unique|duplicate/);
    expect(await rowsOf("refused")).toEqual([]);
  });
});

describe("rows looked up by a batch's keys (Sql.oneOf)", () => {
  // PostgreSQL reckons a JSON set-returning function at 100 rows: `IN (SELECT … FROM
  // json_to_recordset(…))` was planned, once generic, as a sequential scan of a table of a few
  // thousand rows, per batch. `oneOf` must be found through the key's index whatever the plan.
  test.skipIf(testEngine() !== "postgres")("on PostgreSQL, the generic plan reads the key's index, not the table", async () => {
    const { sql } = t.database;
    const statement = (text: string) => sql.statement<Record<string, unknown>>(text);
    const plan = await run(
      t.database.transaction(function* () {
        yield* statement("CREATE TEMP TABLE probe_rows (id text PRIMARY KEY, payload text) ON COMMIT DROP").run();
        yield* statement("INSERT INTO probe_rows SELECT 'row_' || g, repeat('x', 200) FROM generate_series(1, 5000) AS g").run();
        yield* statement("ANALYZE probe_rows").run();
        yield* statement("SET LOCAL plan_cache_mode = force_generic_plan").run();
        yield* statement(`PREPARE probe_lookup(text) AS SELECT id FROM probe_rows WHERE ${sql.oneOf("id", "ids").replace("$ids", "$1")}`).run();
        const rows = yield* statement(`EXPLAIN EXECUTE probe_lookup('["row_7", "row_4000"]')`).all();
        yield* statement("DEALLOCATE probe_lookup").run();
        return rows.map((row) => String(Object.values(row)[0])).join("\n");
      }),
    );
    expect(plan).toContain("Index");
    expect(plan).not.toContain("Seq Scan");
  });

  test("finds exactly the rows whose key is in the list, on either engine", async () => {
    const org = await orgId();
    const found = await run(t.database.transaction(() => t.database.sql.statement<{ id: string }>(`SELECT id FROM organizations WHERE ${t.database.sql.oneOf("id", "ids")}`).all({ ids: JSON.stringify([org, "org_missing"]) })));
    expect(found.map((row) => row.id)).toEqual([org]);
  });
});

describe("rows updated many at once (updateRows, through the onboardings' updateMany)", () => {
  test("each row takes its own values, one statement per set of changed columns; text, booleans, integers and nulls land as given, and no other row moves", async () => {
    const customer = (await t.call("POST", "/api/v1/customers", { body: { name: "Many Rows Inc" } })).body.id;
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push((await t.call("POST", "/api/v1/onboardings", { body: { customer_id: customer, notes: `n${i}` } })).body.id);
    const store = createOnboardingStore(t.database.sql);
    const byId = async () => new Map((await run(store.byIds(ids))).map((row) => [row.id, row]));
    const before = await byId();
    const row = (i: number) => before.get(ids[i]!)!;
    const changes = [
      // Two rows with the same columns changed: one statement.
      { current: row(0), next: { ...row(0), phase: "review" as const, updatedAt: row(0).updatedAt + 5, phaseEnteredAt: row(0).updatedAt + 5 } },
      { current: row(1), next: { ...row(1), phase: "review" as const, updatedAt: row(1).updatedAt + 7, phaseEnteredAt: row(1).updatedAt + 7 } },
      // Text that JSON must escape, a boolean set and an instant.
      { current: row(2), next: { ...row(2), notes: 'é "quoted" \\ back\nline 🚀', waitingOnCustomer: true, waitingOnCustomerSince: 1_795_000_000_000_001 } },
      { current: row(3), next: { ...row(3), notes: 'é "quoted" \\ back\nline 🚀', waitingOnCustomer: true, waitingOnCustomerSince: 1_795_000_000_000_002 } },
      // Booleans cleared, a null set, an integer changed.
      { current: row(4), next: { ...row(4), reminderEmail: false, reminderSlack: false, notes: null, reminderFrequencyDays: 9 } },
      // Nothing changed: written whole, every column as it was.
      { current: row(5), next: { ...row(5) } },
    ];
    await run(t.database.transaction(() => store.updateMany(changes)));
    const after = await byId();
    for (const change of changes) expect(after.get(change.next.id)).toEqual(change.next);
    expect(after.get(ids[6]!)).toEqual(row(6));
    // Nothing in a batch: nothing written.
    await run(t.database.transaction(() => store.updateMany([])));
    expect(await byId()).toEqual(after);
  });
});
