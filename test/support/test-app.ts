import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { Value } from "@sinclair/typebox/value";
import type { TSchema } from "@sinclair/typebox";
import { expect } from "bun:test";
import { createApp, type AppInfrastructure } from "../../api/app.ts";
import { DEFAULT_RATE_LIMITS, type RateLimitSettings } from "../../api/limits/request-limits.ts";
import { ManualClock, systemClock, type Clock } from "../../shared/clock.ts";
import { openDatabase, type Db } from "../../shared/db/client.ts";
import { postgresDatabase, sqliteDatabase, type Database } from "../../shared/db/database.ts";
import { run } from "../../shared/db/flow.ts";
import { openPostgres } from "../../shared/db/postgres.ts";
import { createLogger, type Logger } from "../../shared/logger.ts";
import { createApiKey, createWorkspace, revokeApiKey } from "../../shared/workspaces.ts";
import { freshPostgresDatabase, testPostgresUrl } from "./postgres.ts";

export { ManualClock };

/** A fresh SQLite file with the real migrations, in its own temporary folder. */
export function freshDatabase(): { db: Db; path: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), "onboarding-test-"));
  const path = join(dir, "test.sqlite");
  const db = openDatabase(path);
  return {
    db,
    path,
    cleanup() {
      db.$client.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type Engine = "sqlite" | "postgres";

/**
 * The engine suites run on: SQLite unless `TEST_ENGINE=postgres` (npm test runs the
 * engine-neutral suites a second time that way when PostgreSQL answers; see scripts/test.ts).
 */
export const testEngine = (): Engine => (process.env.TEST_ENGINE === "postgres" ? "postgres" : "sqlite");

export interface TestDatabase {
  database: Database;
  /** The SQLite file's path (SQLite only): for a second process on the same file. */
  path?: string;
  /** The PostgreSQL database's URL (PostgreSQL only): for a second process on the same database. */
  url?: string;
  /** Runs one statement and answers its rows, on either engine (`?` placeholders on both). */
  query<Row = Record<string, unknown>>(sql: string, ...params: unknown[]): Promise<Row[]>;
  /** `SELECT count(*)` of a table, with an optional WHERE clause, as a number. */
  count(table: string, where?: string, ...params: unknown[]): Promise<number>;
  cleanup(): Promise<void>;
}

/** A fresh database of the engine with the real migrations: a SQLite file, or a PostgreSQL database of its own. */
export async function freshTestDatabase(engine: Engine = testEngine()): Promise<TestDatabase> {
  if (engine === "sqlite") {
    const fresh = freshDatabase();
    const database = sqliteDatabase(fresh.db);
    const query = async <Row>(sql: string, ...params: unknown[]) => fresh.db.$client.query(sql).all(...(params as never[])) as Row[];
    return {
      database,
      path: fresh.path,
      query,
      count: async (table, where, ...params) => ((await query<{ n: number }>(`SELECT count(*) AS n FROM ${table}${where ? ` WHERE ${where}` : ""}`, ...params))[0]!.n),
      cleanup: async () => fresh.cleanup(),
    };
  }
  const server = testPostgresUrl();
  if (!server) throw new Error("TEST_ENGINE=postgres but no PostgreSQL answers: set TEST_POSTGRES_URL.");
  const fresh = await freshPostgresDatabase(server);
  const pg = await openPostgres(fresh.url, { poolSize: 5 });
  const database = postgresDatabase(pg);
  // `?` → `$n`, so one statement text serves both engines.
  const query = async <Row>(sql: string, ...params: unknown[]) => {
    let n = 0;
    return (await pg.$client.unsafe(sql.replace(/\?/g, () => `$${++n}`), params as never[])) as Row[];
  };
  return {
    database,
    url: fresh.url,
    query,
    count: async (table, where, ...params) => Number((await query<{ n: unknown }>(`SELECT count(*) AS n FROM ${table}${where ? ` WHERE ${where}` : ""}`, ...params))[0]!.n),
    async cleanup() {
      await database.close();
      await fresh.drop();
    },
  };
}

export const testRedisUrl = () => {
  const url = process.env.TEST_REDIS_URL;
  if (!url) throw new Error("TEST_REDIS_URL is not set: run the suites with `npm test` (bun test with the preload).");
  return url;
};

/** Resolves once the connection is up (the API's client does not queue commands offline). */
export async function waitUntilReady(redis: Redis): Promise<void> {
  if (redis.status === "ready") return;
  await new Promise<void>((resolve, reject) => {
    redis.once("ready", () => resolve());
    setTimeout(() => reject(new Error("test Redis did not become ready")), 5000).unref();
  });
}

/** A unique prefix per suite, so suites sharing one Redis never see each other's keys. */
export const uniquePrefix = (name: string) => `t-${name}-${crypto.randomUUID().slice(0, 8)}`;

export interface CallOptions {
  body?: unknown;
  key?: string | null;
  headers?: Record<string, string>;
}

export interface TestResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/**
 * The real app over a private database and Redis, with two workspaces and the keys a test
 * needs: live, test, a revoked one, and one of another workspace.
 */
/** The SECRET_KEY of test apps (an installation always has one: npm start generates it). */
export const TEST_SECRET_KEY = "test-secret-key-for-sealing-0123456789";

export async function createTestApp(
  options: {
    clock?: Clock;
    logger?: Logger;
    rateLimits?: RateLimitSettings;
    redisPrefix?: string;
    redis?: Redis;
    publicUrl?: string;
    secretKey?: string;
    adminToken?: string;
    app?: Partial<AppInfrastructure>;
    /** The engine, when a suite runs one of its own regardless of TEST_ENGINE. */
    engine?: Engine;
  } = {},
) {
  const fresh = await freshTestDatabase(options.engine);
  const { database } = fresh;
  const clock = options.clock ?? systemClock;
  const redis = options.redis ?? new Redis(testRedisUrl(), { maxRetriesPerRequest: 1, enableOfflineQueue: false, enableAutoPipelining: true });
  const logger = options.logger ?? createLogger("silent");
  const built = await createApp({
    database,
    redis,
    clock,
    logger,
    publicUrl: options.publicUrl ?? "http://127.0.0.1:3000",
    // An installation always has one (npm start generates it); webhook secrets are sealed with it.
    secretKey: options.secretKey ?? TEST_SECRET_KEY,
    adminToken: options.adminToken ?? null,
    redisPrefix: options.redisPrefix ?? uniquePrefix("app"),
    // Suites send many failing requests from one address on purpose; the limit suite sets its own.
    rateLimits: options.rateLimits ?? { ...DEFAULT_RATE_LIMITS, failedAuthPerAddress: 100_000 },
    ...options.app,
  });
  if (!options.redis) await waitUntilReady(redis);

  await run(createWorkspace(database, systemClock, { slug: "acme", name: "Acme" }));
  await run(createWorkspace(database, systemClock, { slug: "globex", name: "Globex" }));
  const key = (workspaceSlug: string, name: string, mode: "live" | "test" = "live") =>
    run(createApiKey(database, systemClock, { workspaceSlug, name, mode, tier: "paid" }));
  const live = await key("acme", "crm-sync");
  const test = await key("acme", "ci-suite", "test");
  const revoked = await key("acme", "old-key");
  await run(revokeApiKey(database, systemClock, revoked.row.id));
  const other = await key("globex", "globex-sync");

  async function call<T = any>(method: string, path: string, options: CallOptions = {}): Promise<TestResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    const key = options.key === undefined ? live.key : options.key;
    if (key !== null) headers.authorization ??= `Bearer ${key}`;
    let body: string | undefined;
    if (options.body !== undefined) {
      body = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
      headers["content-type"] ??= "application/json";
    }
    const response = await built.app.handle(new Request(`http://localhost${path}`, { method, headers, body }));
    const text = await response.text();
    let parsed: unknown = undefined;
    try {
      parsed = text === "" ? undefined : JSON.parse(text);
    } catch {
      parsed = text;
    }
    return { status: response.status, headers: response.headers, body: parsed as T, text };
  }

  return {
    ...built,
    database,
    /** The SQLite handle (undefined on PostgreSQL): for suites about SQLite itself. */
    db: (database.engine === "sqlite" ? database.db : undefined) as Db,
    dbPath: fresh.path,
    /** The `DATABASE_URL` a second process (a worker, another API) uses to reach this database. */
    databaseUrl: fresh.url ?? `file:${fresh.path}`,
    query: fresh.query,
    count: fresh.count,
    redis,
    clock,
    keys: { live: live.key, test: test.key, revoked: revoked.key, other: other.key },
    keyIds: { live: live.row.id, test: test.row.id, revoked: revoked.row.id, other: other.row.id },
    call,
    /** The app's own shutdown (timers stopped, usage written), leaving the database open. */
    shutdownApp: built.close,
    async close() {
      await built.close();
      if (!options.redis) redis.disconnect();
      await fresh.cleanup();
    },
  };
}

export type TestApp = Awaited<ReturnType<typeof createTestApp>>;

/** Asserts a body matches its documented schema, naming the first mismatch. */
export function expectSchema(schema: TSchema, value: unknown): void {
  const first = Value.Errors(schema, value).First();
  expect(first ? `${first.path}: ${first.message}` : "ok").toBe("ok");
}

/** Asserts the documented error shape and code. */
export function expectError(response: TestResponse, status: number, code: string, field?: string): void {
  expect({ status: response.status, code: response.body?.error?.code }).toEqual({ status, code });
  expect(typeof response.body.error.type).toBe("string");
  expect(typeof response.body.error.message).toBe("string");
  if (field !== undefined) expect(response.body.error.field).toBe(field);
  expect(response.headers.get("request-id")).toMatch(/^req_/);
}
