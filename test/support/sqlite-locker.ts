/**
 * Another process holding a SQLite database's write lock: `bun test/support/sqlite-locker.ts
 * <file> <ms>` takes it (BEGIN IMMEDIATE), says "locked", holds it for <ms>, then commits,
 * says "released" and exits. What an operator's sqlite3 shell, a backup or a stuck process does.
 */
import { Database } from "bun:sqlite";

const [file, ms] = process.argv.slice(2);
const db = new Database(file!);
db.exec("PRAGMA busy_timeout = 5000");
db.exec("BEGIN IMMEDIATE");
console.log("locked");
await Bun.sleep(Number(ms));
db.exec("COMMIT");
console.log("released");
db.close();
