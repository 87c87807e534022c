import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { createGroupCommit } from "../../shared/db/group-commit.ts";
import { run, use } from "../../shared/db/flow.ts";
import { DomainError } from "../../shared/errors.ts";
import { freshDatabase } from "../support/test-app.ts";

/** Group commit on a real SQLite file, watched by a second connection as another process would. */
const fresh = freshDatabase();
const sqlite = fresh.db.$client;
sqlite.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE)");
sqlite.exec("PRAGMA busy_timeout = 0");
const other = new Database(fresh.path);
afterAll(() => {
  other.close();
  fresh.cleanup();
});

const insert = sqlite.prepare("INSERT INTO notes (text) VALUES (?)");
const note = (text: string) =>
  function* () {
    yield* use(insert.run(text));
    return text;
  };
/** Bumps once per transaction another connection commits. */
const commitsSeen = () => (other.query("PRAGMA data_version").get() as { data_version: number }).data_version;
const count = () => (other.query("SELECT count(*) AS n FROM notes").get() as { n: number }).n;

describe("group commit", () => {
  const transaction = createGroupCommit(fresh.db, { busyTimeoutMs: 300 });

  test("transactions started in one turn commit together, each answered after the commit", async () => {
    const before = commitsSeen();
    const started = Array.from({ length: 10 }, (_, i) => run(transaction(note(`together-${i}`))));
    expect(count()).toBe(0); // nothing is written before the turn ends
    expect(await Promise.all(started)).toEqual(Array.from({ length: 10 }, (_, i) => `together-${i}`));
    expect(count()).toBe(10);
    expect(commitsSeen() - before).toBe(1);
  });

  test("a body that fails rolls back alone; the rest of its group commits", async () => {
    const answers = await Promise.allSettled([
      run(transaction(note("kept-1"))),
      run(
        transaction(function* () {
          yield* use(insert.run("rolled-back"));
          throw new DomainError("invalid_type", "refused");
        }),
      ),
      run(transaction(note("together-0"))), // a UNIQUE violation: fails alone too
      run(transaction(note("kept-2"))),
    ]);
    expect(answers.map((a) => a.status)).toEqual(["fulfilled", "rejected", "rejected", "fulfilled"]);
    const texts = (other.query("SELECT text FROM notes WHERE text IN ('kept-1', 'kept-2', 'rolled-back')").all() as { text: string }[]).map((r) => r.text);
    expect(texts.sort()).toEqual(["kept-1", "kept-2"]);
  });

  test("a body alone in its group that fails rolls the transaction back and fails", async () => {
    const error = await Promise.resolve(
      run(
        transaction(function* () {
          yield* use(insert.run("alone-and-failing"));
          throw new DomainError("invalid_type", "refused");
        }),
      ),
    ).catch((e) => e);
    expect((error as DomainError).code).toBe("invalid_type");
    expect((other.query("SELECT count(*) AS n FROM notes WHERE text = 'alone-and-failing'").get() as { n: number }).n).toBe(0);
    expect(await run(transaction(note("alone-after")))).toBe("alone-after"); // the connection is usable again
  });

  test("later bodies of a group see the rows of earlier ones, as if committed one after another", async () => {
    const countInside = sqlite.prepare("SELECT count(*) AS n FROM notes WHERE text LIKE 'seen-%'");
    const seen: number[] = [];
    await Promise.all(
      [0, 1, 2].map((i) =>
        run(
          transaction(function* () {
            seen.push((countInside.get() as { n: number }).n);
            yield* use(insert.run(`seen-${i}`));
          }),
        ),
      ),
    );
    expect(seen).toEqual([0, 1, 2]);
  });

  test("nested in a running transaction it is a savepoint, run at once", async () => {
    const result = await run(
      transaction(function* () {
        const inner = yield* transaction(note("nested"));
        return `${inner} inside`;
      }),
    );
    expect(result).toBe("nested inside");
    expect(count()).toBeGreaterThan(0);
  });

  test("while another process holds the write lock the group waits with timers, then commits", async () => {
    other.exec("BEGIN IMMEDIATE");
    const pending = run(transaction(note("after-the-lock")));
    let settled = false;
    void Promise.resolve(pending).then(() => (settled = true));
    await Bun.sleep(50);
    expect(settled).toBe(false); // waiting, and the event loop kept running
    other.exec("COMMIT");
    expect(await pending).toBe("after-the-lock");
  });

  test("a lock held past the wait answers 503 service_unavailable and writes nothing", async () => {
    other.exec("BEGIN IMMEDIATE");
    try {
      const error = await Promise.resolve(run(transaction(note("never")))).catch((e) => e);
      expect(error).toBeInstanceOf(DomainError);
      expect((error as DomainError).code).toBe("service_unavailable");
    } finally {
      other.exec("COMMIT");
    }
    expect((other.query("SELECT count(*) AS n FROM notes WHERE text = 'never'").get() as { n: number }).n).toBe(0);
  });
});
