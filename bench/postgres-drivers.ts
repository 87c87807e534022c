/**
 * Bun's built-in SQL client (drizzle-orm/bun-sql) against postgres.js (drizzle-orm/postgres-js),
 * through drizzle pg-core, on the statements the service's hot paths run: a point read by
 * primary key, a page read, an insert, and a read-decide-write transaction with a row lock
 * (the per-workspace sequence). Each scenario runs sequentially and with 32 requests in flight.
 *
 *   bun bench/postgres-drivers.ts [postgres://…/postgres]
 */
import { SQL } from "bun";
import { and, desc, eq, lt, sql } from "drizzle-orm";
import { drizzle as bunSqlDrizzle } from "drizzle-orm/bun-sql";
import { migrate as bunSqlMigrate } from "drizzle-orm/bun-sql/migrator";
import { drizzle as postgresJsDrizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { resolve } from "node:path";
import * as schema from "../shared/db/schema.pg.ts";

const admin = process.argv[2] ?? process.env.TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const name = `bench_drivers_${crypto.randomUUID().slice(0, 8)}`;
const root = postgres(admin, { max: 1, onnotice: () => {} });
await root.unsafe(`CREATE DATABASE ${name}`);
const url = new URL(admin);
url.pathname = `/${name}`;

const POOL = 10;
type AnyDb = ReturnType<typeof postgresJsDrizzle<typeof schema>>;

async function scenarios(label: string, db: AnyDb) {
  const org = `org_${label}`;
  await db.insert(schema.organizations).values({ id: org, slug: label, name: label, createdAt: 1 });
  const byId = db.select().from(schema.customers).where(and(eq(schema.customers.orgId, sql.placeholder("orgId")), eq(schema.customers.id, sql.placeholder("id")))).prepare(`by_id_${label}`);
  const page = db
    .select()
    .from(schema.customers)
    .where(and(eq(schema.customers.orgId, sql.placeholder("orgId")), lt(schema.customers.createdAt, sql.placeholder("before"))))
    .orderBy(desc(schema.customers.createdAt))
    .limit(21)
    .prepare(`page_${label}`);
  let n = 0;
  const insertOne = async () => {
    const i = n++;
    await db.insert(schema.customers).values({ id: `cus_${label}_${i}`, orgId: org, displayId: i + 1, name: `C ${i}`, slug: `c-${i}`, domain: null, status: "onboarding", metadata: "{}", createdAt: 1_000 + i, updatedAt: 1_000 + i });
  };
  const sequenced = async () =>
    db.transaction(async (tx) => {
      const [row] = await tx
        .insert(schema.sequences)
        .values({ orgId: org, kind: "contact", lastDisplayId: 1, lastCreatedAt: Date.now() * 1000 })
        .onConflictDoUpdate({
          target: [schema.sequences.orgId, schema.sequences.kind],
          set: { lastDisplayId: sql`${schema.sequences.lastDisplayId} + 1`, lastCreatedAt: sql`greatest(excluded.last_created_at, ${schema.sequences.lastCreatedAt} + 1)` },
        })
        .returning();
      await tx.insert(schema.outbox).values({ orgId: org, queue: "records", name: "x", payload: JSON.stringify(row), createdAt: row!.lastCreatedAt });
    });
  const run = async (what: string, total: number, inFlight: number, op: (i: number) => Promise<unknown>) => {
    const started = performance.now();
    let next = 0;
    await Promise.all(Array.from({ length: inFlight }, async () => {
      while (next < total) await op(next++);
    }));
    const ms = performance.now() - started;
    return { driver: label, scenario: what, in_flight: inFlight, ops: total, ops_per_s: Math.round((total / ms) * 1000) };
  };
  const out = [];
  out.push(await run("insert customer", 3000, 1, insertOne));
  out.push(await run("insert customer", 3000, 32, insertOne));
  out.push(await run("read by id", 5000, 1, (i) => byId.execute({ orgId: org, id: `cus_${label}_${i % 3000}` })));
  out.push(await run("read by id", 10000, 32, (i) => byId.execute({ orgId: org, id: `cus_${label}_${i % 3000}` })));
  out.push(await run("page of 20", 3000, 1, (i) => page.execute({ orgId: org, before: 2_000 + (i % 3000) })));
  out.push(await run("page of 20", 6000, 32, (i) => page.execute({ orgId: org, before: 2_000 + (i % 3000) })));
  out.push(await run("locked sequence tx", 1000, 1, sequenced));
  out.push(await run("locked sequence tx", 2000, 32, sequenced));
  return out;
}

const results = [];
try {
  const folder = resolve(import.meta.dir, "../drizzle/postgres");
  for (const round of [1, 2]) {
    const pjs = postgres(url.toString(), { max: POOL, onnotice: () => {} });
    const pjsDb = postgresJsDrizzle(pjs, { schema });
    if (round === 1) await (await import("drizzle-orm/postgres-js/migrator")).migrate(pjsDb, { migrationsFolder: folder });
    const bun = new SQL({ url: url.toString(), max: POOL });
    const bunDb = bunSqlDrizzle(bun, { schema }) as unknown as AnyDb;
    void bunSqlMigrate;
    // Alternate the order between rounds so neither driver always meets the warmer server.
    const order: [string, AnyDb][] = round === 1 ? [["postgresjs", pjsDb as AnyDb], ["bunsql", bunDb]] : [["bunsql", bunDb], ["postgresjs", pjsDb as AnyDb]];
    for (const [label, db] of order) results.push(...(await scenarios(`${label}${round}`, db)).map((r) => ({ ...r, driver: label, round })));
    await pjs.end();
    await bun.close();
  }
} finally {
  await root.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await root.end();
}
console.table(results);
const key = (r: { scenario: string; in_flight: number }) => `${r.scenario} ×${r.in_flight}`;
const rows = new Map<string, Record<string, number>>();
for (const r of results) {
  const entry = rows.get(key(r)) ?? {};
  entry[r.driver] = Math.max(entry[r.driver] ?? 0, r.ops_per_s);
  rows.set(key(r), entry);
}
console.log("\n| scenario (in flight) | postgres.js ops/s | Bun SQL ops/s |\n|---|---:|---:|");
for (const [k, v] of rows) console.log(`| ${k} | ${v.postgresjs} | ${v.bunsql} |`);
