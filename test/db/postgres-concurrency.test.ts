import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, desc, eq, lt, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/bun-sql";
import { createSequences } from "../../api/sequences.store.ts";
import { createCustomerStore } from "../../api/customers/customers.store.ts";
import { createIdempotencyStore } from "../../api/idempotency/idempotency.store.ts";
import { createApiKeyStore } from "../../api/auth/api-keys.store.ts";
import { createOutboundStore } from "../../worker/outbound.store.ts";
import { createOutboxStore } from "../../shared/db/outbox.store.ts";
import { postgresDatabase, type Database } from "../../shared/db/database.ts";
import { run } from "../../shared/db/flow.ts";
import { connectPostgres, migratePostgres, pgTransaction, type PgDb } from "../../shared/db/postgres.ts";
import * as schema from "../../shared/db/schema.pg.ts";
import { DomainError } from "../../shared/errors.ts";
import { freePort } from "../../scripts/private-redis.ts";
import { freshPostgresDatabase, testPostgresUrl } from "../support/postgres.ts";

const server = testPostgresUrl();

/** One database handle per pool, as a process builds it: the stores are the service's own. */
const handles = new WeakMap<PgDb, Database>();
const on = (db: PgDb): Database & { engine: "postgres" } => {
  let handle = handles.get(db);
  if (!handle) handles.set(db, (handle = postgresDatabase(db)));
  return handle as Database & { engine: "postgres" };
};

/**
 * The stores whose guarantees depend on locking, driven from two
 * separate connection pools at once: what two API processes (or two workers) on one database do.
 */
describe.skipIf(!server)("PostgreSQL adapters under concurrency from two processes' pools", () => {
  let database: Awaited<ReturnType<typeof freshPostgresDatabase>>;
  let a: PgDb;
  let b: PgDb;
  const ORG = "org_concurrency";
  beforeAll(async () => {
    database = await freshPostgresDatabase(server!);
    await migratePostgres(database.url);
    a = drizzle(connectPostgres(database.url, { poolSize: 8 }), { schema }) as PgDb;
    b = drizzle(connectPostgres(database.url, { poolSize: 8 }), { schema }) as PgDb;
    await a.insert(schema.organizations).values({ id: ORG, slug: "concurrency", name: "Concurrency", createdAt: 1 });
  });
  afterAll(async () => {
    await a?.$client.close();
    await b?.$client.close();
    await database?.drop();
  });

  test("200 concurrent creates: distinct sequential display ids, unique created_at, a page walk that never skips or repeats", async () => {
    const nextOn = { a: createSequences(on(a).sql), b: createSequences(on(b).sql) };
    const sameClock = 1_795_000_000_000_000; // every process reads the same microsecond
    const creates = Array.from({ length: 200 }, (_, i) =>
      pgTransaction((i % 2 === 0 ? a : b).$client, async () => {
        const seq = await run(nextOn[i % 2 === 0 ? "a" : "b"](ORG, "customer", sameClock));
        const customers = createCustomerStore(on(i % 2 === 0 ? a : b).sql);
        await run(customers.insert({ id: `cus_${i}`, orgId: ORG, displayId: seq.displayId, name: `C${i}`, slug: `c-${i}`, domain: null, status: "onboarding", metadata: "{}", createdAt: seq.createdAt, updatedAt: seq.createdAt }));
        return seq;
      }),
    );
    const made = await Promise.all(creates);
    expect(made.map((s) => s.displayId).sort((x, y) => x - y)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    expect(new Set(made.map((s) => s.createdAt)).size).toBe(200);
    // Display id order is creation order.
    const byDisplay = [...made].sort((x, y) => x.displayId - y.displayId);
    expect(byDisplay.every((s, i) => i === 0 || s.createdAt > byDisplay[i - 1]!.createdAt)).toBe(true);

    const seen: string[] = [];
    let cursor = Number.MAX_SAFE_INTEGER;
    for (;;) {
      const page = await b
        .select({ id: schema.customers.id, createdAt: schema.customers.createdAt })
        .from(schema.customers)
        .where(and(eq(schema.customers.orgId, ORG), lt(schema.customers.createdAt, cursor)))
        .orderBy(desc(schema.customers.createdAt))
        .limit(21);
      seen.push(...page.slice(0, 20).map((r) => r.id));
      if (page.length <= 20) break;
      cursor = page[19]!.createdAt;
    }
    expect(seen).toHaveLength(200);
    expect(new Set(seen).size).toBe(200);
  });

  test("four relayers on two pools hand each outbox row over exactly once (FOR UPDATE SKIP LOCKED)", async () => {
    const rows = Array.from({ length: 1000 }, (_, i) => ({ orgId: ORG, queue: "records", name: "timeline.phase_changed", payload: `{"n":${i}}`, createdAt: i + 1 }));
    for (let i = 0; i < rows.length; i += 250) await a.insert(schema.outbox).values(rows.slice(i, i + 250));
    const handed = new Map<number, number>();
    const relayer = async (db: PgDb) => {
      const store = createOutboxStore(on(db));
      let moved = 0;
      while (
        (moved = await run(store.relayPending(50, () => 42, async (batch) => {
          for (const r of batch) handed.set(r.id, (handed.get(r.id) ?? 0) + 1);
          await Bun.sleep(2); // Redis's round trip: the other relayers run meanwhile
        }))) > 0
      );
      return moved;
    };
    await Promise.all([relayer(a), relayer(a), relayer(b), relayer(b)]);
    expect(handed.size).toBe(1000);
    expect([...handed.values()].every((n) => n === 1)).toBe(true);
    expect(await run(createOutboxStore(on(b)).backlog())).toBe(0);
  });

  test("the reconciler's claim: two processes never check the same unfinished row at once", async () => {
    const checked = new Map<number, number>();
    const reconciler = (db: PgDb) =>
      run(createOutboxStore(on(db)).reconcileUnfinished(0, 100, 1000, async (rows) => {
        for (const r of rows) checked.set(r.id, (checked.get(r.id) ?? 0) + 1);
        await Bun.sleep(20);
        return { completed: rows.map((r) => r.id) };
      }, () => 43));
    await Promise.all([reconciler(a), reconciler(b)]);
    expect(checked.size).toBe(1000);
    expect([...checked.values()].every((n) => n === 1)).toBe(true);
    expect(await run(createOutboxStore(on(a)).unfinishedCount())).toBe(0);
  });

  test("an idempotency key claimed by 20 requests on two pools at once: exactly one claim", async () => {
    const ids = { apiKeyId: "key_1", key: "same-key" };
    const claims = await Promise.all(
      Array.from({ length: 20 }, (_, i) => pgTransaction((i % 2 ? a : b).$client, async () => run(createIdempotencyStore(on(i % 2 ? a : b).sql).claim(ids, "fp", 1000 + i)))),
    );
    expect(claims.filter(Boolean)).toHaveLength(1);
  });

  test("key-usage flushes of two processes add up", async () => {
    await a.insert(schema.apiKeys).values({ id: "key_usage", orgId: ORG, name: "k", prefix: "svc_x", keyHash: "h", mode: "live", createdAt: 1 });
    await Promise.all(
      Array.from({ length: 50 }, (_, i) => run(createApiKeyStore(on(i % 2 ? a : b).sql, on(i % 2 ? a : b).transaction).addUsage([["key_usage", { count: 2, lastUsedAt: 1000 + i, lastUsedIp: i === 7 ? "10.0.0.7" : null }]]))),
    );
    const [row] = await a.select().from(schema.apiKeys).where(eq(schema.apiKeys.id, "key_usage"));
    expect({ count: row!.requestCount, at: row!.lastUsedAt, ip: row!.lastUsedIp }).toEqual({ count: 100, at: 1049, ip: "10.0.0.7" });
  });

  test("a reminder period marked by ten workers at once is marked once", async () => {
    const marks = await Promise.all(Array.from({ length: 10 }, (_, i) => pgTransaction((i % 2 ? a : b).$client, async () => run(createOutboundStore(on(i % 2 ? a : b).sql).markPeriod("onb_1", 3, 5000 + i)))));
    expect(marks.filter(Boolean)).toHaveLength(1);
  });

  test("creates under one customer share its row (FOR SHARE); a change of the customer waits for them all", async () => {
    const customersA = createCustomerStore(on(a).sql);
    const customersB = createCustomerStore(on(b).sql);
    await run(customersA.insert({ id: "cus_shared", orgId: ORG, displayId: 9_001, name: "Shared", slug: "shared", domain: null, status: "onboarding", metadata: "{}", createdAt: 1, updatedAt: 1 }));
    const order: string[] = [];
    /** A transaction that reads the customer as a create under it does, then holds it until `release`. */
    const holdAsReference = (db: PgDb, store: typeof customersA, name: string) => {
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let read!: () => void;
      const readDone = new Promise<void>((resolve) => (read = resolve));
      const done = pgTransaction(db.$client, async () => {
        expect((await run(store.byId(ORG, "cus_shared", "share")))?.id).toBe("cus_shared");
        order.push(`${name} read`);
        read();
        await released;
        order.push(`${name} commits`);
      });
      return { readDone, release, done };
    };
    const first = holdAsReference(a, customersA, "create 1");
    await first.readDone;
    // A second create under the customer is not held up by the first.
    const second = holdAsReference(b, customersB, "create 2");
    await second.readDone;
    // A change of the customer (its deletion reads it so) waits for both creates to end.
    const change = pgTransaction(b.$client, async () => {
      await run(customersB.byId(ORG, "cus_shared"));
      order.push("change read");
    });
    await Bun.sleep(150);
    expect(order).toEqual(["create 1 read", "create 2 read"]);
    first.release();
    await first.done;
    await Bun.sleep(100);
    expect(order).not.toContain("change read");
    second.release();
    await Promise.all([second.done, change]);
    expect(order).toEqual(["create 1 read", "create 2 read", "create 1 commits", "create 2 commits", "change read"]);
  });

  test("a deadlock is retried: both transactions commit", async () => {
    await a.insert(schema.loginFailures).values([{ bucket: "x", windowStartedAt: 0, failures: 0 }, { bucket: "y", windowStartedAt: 0, failures: 0 }]);
    const bump = (db: PgDb, first: string, second: string) =>
      pgTransaction(db.$client, async () => {
        const tx = on(db).db;
        await tx.update(schema.loginFailures).set({ failures: sql`${schema.loginFailures.failures} + 1` }).where(eq(schema.loginFailures.bucket, first));
        await Bun.sleep(150);
        await tx.update(schema.loginFailures).set({ failures: sql`${schema.loginFailures.failures} + 1` }).where(eq(schema.loginFailures.bucket, second));
      });
    await Promise.all([bump(a, "x", "y"), bump(b, "y", "x")]);
    const rows = await a.select().from(schema.loginFailures).orderBy(schema.loginFailures.bucket);
    expect(rows.map((r) => r.failures)).toEqual([2, 2]);
  });

  test("PostgreSQL away: refused or silent, a transaction answers service_unavailable within 5 s, never hangs", async () => {
    const refused = await freePort();
    // A listener that accepts and never speaks: a host that is up, but PostgreSQL on it is not.
    const silent = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    try {
      for (const port of [refused, silent.port]) {
        const db = drizzle(connectPostgres(`postgres://postgres@127.0.0.1:${port}/none`, { connectTimeoutSeconds: 2 }), { schema }) as PgDb;
        const started = performance.now();
        const error = await pgTransaction(db.$client, async () => run(on(db).sql.statement("SELECT 1").get())).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(DomainError);
        expect((error as DomainError).code).toBe("service_unavailable");
        expect(performance.now() - started).toBeLessThan(5000);
        await db.$client.close().catch(() => {});
      }
    } finally {
      silent.stop(true);
    }
  });
});
