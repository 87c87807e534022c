import { afterAll, describe, expect, test } from "bun:test";
import { Database as Sqlite } from "bun:sqlite";
import { openSync, readFileSync, readSync, statSync } from "node:fs";
import { createAuthenticator } from "../../api/auth/authenticate.ts";
import { createApiStores } from "../../api/stores.ts";
import { systemClock } from "../../shared/clock.ts";
import { sqliteDatabase } from "../../shared/db/database.ts";
import { run } from "../../shared/db/flow.ts";
import { mapHeader } from "../../shared/db/shm-map.ts";
import { watchWalCommits } from "../../shared/db/wal-commits.ts";
import { createApiKey, createWorkspace } from "../../shared/workspaces.ts";
import { freshDatabase } from "../support/test-app.ts";

/**
 * The WAL-index watch (shared/db/wal-commits.ts) on a real file: it must see every commit, of
 * this connection, of another connection and of another process, and nothing else. Both of its
 * readers are held to that: the header read in place through a shared map (the default), and
 * the `pread` it falls back to where no map can be made.
 */
const fresh = freshDatabase();
const database = sqliteDatabase(fresh.db);
const sqlite = fresh.db.$client;
sqlite.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)");
const other = new Sqlite(fresh.path, { strict: true });
let shm: number | undefined;
afterAll(() => {
  other.close();
  database.close();
  fresh.cleanup();
});

for (const mapped of [true, false]) {
  const watch = () => {
    const made = watchWalCommits(sqlite, { mapped });
    if (!made) throw new Error("a WAL file has a watch");
    made.mark();
    return made;
  };

  describe(`the WAL-index commit watch, the header read ${mapped ? "in place (a shared map)" : "with pread"}`, () => {
    test("nothing moves it but a commit: reads of any connection leave it", () => {
      const w = watch();
      expect(w.moved()).toBe(false);
      sqlite.query("SELECT count(*) FROM notes").get();
      other.query("SELECT count(*) FROM notes").get();
      expect(w.moved()).toBe(false);
    });

    test("a commit of this connection, or of another, moves it; a new mark settles it again", () => {
      const w = watch();
      sqlite.run("INSERT INTO notes (body) VALUES ('mine')");
      expect(w.moved()).toBe(true);
      w.mark();
      expect(w.moved()).toBe(false);
      other.run("INSERT INTO notes (body) VALUES ('theirs')");
      expect(w.moved()).toBe(true);
    });

    test("a commit of another process moves it", () => {
      const w = watch();
      const child = Bun.spawnSync([process.execPath, "-e", `const { Database } = require("bun:sqlite"); new Database(${JSON.stringify(fresh.path)}).run("INSERT INTO notes (body) VALUES ('elsewhere')")`], { stderr: "pipe" });
      expect(child.stderr.toString()).toBe("");
      expect(child.exitCode).toBe(0);
      expect(w.moved()).toBe(true);
    });

    test("a transaction rolled back commits nothing and leaves it", () => {
      const w = watch();
      other.exec("BEGIN IMMEDIATE");
      other.run("INSERT INTO notes (body) VALUES ('never')");
      other.exec("ROLLBACK");
      expect(w.moved()).toBe(false);
    });

    test("the WAL started over by a checkpoint, and a commit of the same size as the one marked, moves it", () => {
      const frames = () => (other.query("PRAGMA wal_checkpoint(RESTART)").get() as { log: number }).log;
      // mxFrame, as this machine's byte order writes it; read through a descriptor never closed
      // (closing one would drop this process's locks on the file, see wal-commits.ts).
      const lastFrame = () => {
        const header = new Uint8Array(20);
        readSync((shm ??= openSync(`${fresh.path}-shm`, "r")), header, 0, 20, 0);
        return new DataView(header.buffer).getUint32(16, true);
      };
      frames();
      other.run("INSERT INTO notes (body) VALUES ('one frame')");
      const w = watch();
      const before = lastFrame();
      frames(); // every frame copied back: the next commit starts the WAL over from its first frame
      sqlite.run("INSERT INTO notes (body) VALUES ('one frame')");
      expect(lastFrame()).toBe(before); // the same last frame as at the mark: only the salts and the count tell
      expect(w.moved()).toBe(true);
    });

    test("never marked, or closed, it answers 'moved': the caller reads", () => {
      const unmarked = watchWalCommits(sqlite, { mapped })!;
      expect(unmarked.moved()).toBe(true);
      const closed = watch();
      closed.close();
      expect(closed.moved()).toBe(true);
    });

    test("making a watch leaves this process's locks on the -shm file as SQLite holds them", () => {
      // POSIX locks belong to the process, and closing any descriptor of a file drops them all:
      // a watch that opened and closed the file would take SQLite's dead-man's-switch lock away.
      const ino = statSync(`${fresh.path}-shm`).ino;
      const held = () =>
        readFileSync("/proc/locks", "utf8")
          .split("\n")
          .filter((line) => line.includes(`:${ino} `) && line.split(/\s+/).includes(String(process.pid)))
          .map((line) => line.split(/\s+/).slice(1).join(" "));
      const before = held();
      expect(before.length).toBeGreaterThan(0);
      for (let i = 0; i < 3; i++) watch().moved();
      expect(held()).toEqual(before);
    });

    test("a database in memory has no watch", () => {
      const memory = new Sqlite(":memory:");
      expect(watchWalCommits(memory, { mapped })).toBeNull();
      memory.close();
    });
  });
}

test("the header in place is the file's first bytes, and shows a commit as soon as it is written", () => {
  // The map's view is the file's first bytes as SQLite wrote them: what a pread finds. (The
  // descriptor stays open, as the watch's do: closing it would drop this process's locks.)
  const fd = (shm ??= openSync(`${fresh.path}-shm`, "r"));
  const header = new Uint8Array(96);
  readSync(fd, header, 0, 96, 0);
  const mapped = mapHeader(fd, 96);
  if (process.platform !== "linux") return; // elsewhere a null map (pread) is as correct, only slower
  expect(mapped).not.toBeNull();
  expect(new Uint8Array(mapped!.buffer, mapped!.byteOffset, 96)).toEqual(header);
  // What a commit writes is seen through the map with no read of the file.
  const before = Array.from(mapped!);
  other.run("INSERT INTO notes (body) VALUES ('seen in place')");
  expect(Array.from(mapped!)).not.toEqual(before);
});

describe("the key cache on the watch", () => {
  test("the revision is read once per commit, not once per request, and a revocation is seen at once", async () => {
    await run(createWorkspace(database, systemClock, { slug: "watched", name: "Watched" }));
    const { key, row } = await run(createApiKey(database, systemClock, { workspaceSlug: "watched", name: "watched", mode: "live", tier: "paid" }));
    const stores = createApiStores(database, () => {});
    let reads = 0;
    const counted = { ...stores.apiKeys, revision: () => (reads++, stores.apiKeys.revision()) };
    const authenticate = createAuthenticator(counted, database.watchCommits());
    const header = `Bearer ${key}`;
    for (let i = 0; i < 5; i++) authenticate(header);
    expect(reads).toBe(1);
    // Another connection's revocation: the next request reads the revision again and refuses.
    other.run("UPDATE api_keys SET revoked_at = ? WHERE id = ?", [systemClock.nowMicros(), row.id]);
    expect(() => authenticate(header)).toThrow(/revoked/);
    expect(reads).toBe(2);
  });
});
