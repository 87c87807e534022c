import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { count } from "drizzle-orm";
import { drizzle } from "drizzle-orm/bun-sql";
import { createPgContactStore } from "../../api/contacts/contacts.pg.store.ts";
import { createContactStore } from "../../api/contacts/contacts.store.ts";
import { createPgCustomerStore } from "../../api/customers/customers.pg.store.ts";
import { createCustomerStore } from "../../api/customers/customers.store.ts";
import { createPgOnboardingStore } from "../../api/onboardings/onboardings.pg.store.ts";
import { createOnboardingStore } from "../../api/onboardings/onboardings.store.ts";
import { createPgWorkspaceStore } from "../../api/workspaces.pg.store.ts";
import { createWorkspaceStore } from "../../api/workspaces.store.ts";
import { createActivityStore } from "../../shared/db/activity.store.ts";
import { createPgActivityStore, createPgOutboxWriter } from "../../shared/db/activity-outbox.pg.store.ts";
import { createOutboxWriter } from "../../shared/db/outbox-writer.store.ts";
import { connectPostgres, migratePostgres, pgTransaction, type PgDb } from "../../shared/db/postgres.ts";
import * as pgSchema from "../../shared/db/schema.pg.ts";
import * as sqliteSchema from "../../shared/db/schema.ts";
import type { OnboardingRow } from "../../shared/db/schema.ts";
import { freshPostgresDatabase, testPostgresUrl } from "../support/postgres.ts";
import { freshDatabase } from "../support/test-app.ts";

/** What a scenario needs of an engine: its stores, a transaction, and row counts for checking. */
interface Engine {
  workspaces: { launchRecapEnabled(orgId: string): boolean | Promise<boolean> };
  customers: ReturnType<typeof createPgCustomerStore> | ReturnType<typeof createCustomerStore>;
  contacts: ReturnType<typeof createPgContactStore> | ReturnType<typeof createContactStore>;
  onboardings: ReturnType<typeof createPgOnboardingStore> | ReturnType<typeof createOnboardingStore>;
  activity: { insert(e: Parameters<ReturnType<typeof createActivityStore>["insert"]>[0]): void | Promise<void> };
  outbox: { add(orgId: string | null, queue: "records", name: "activity.batch", payload: { entries: [] }, now: number): void | Promise<void> };
  transaction<T>(fn: () => Promise<T>): Promise<T>;
  counts(): Promise<{ activity: number; outbox: number }>;
}

const MAX = Number.MAX_SAFE_INTEGER;
const onboarding = (id: string, customerId: string, displayId: number, createdAt: number, over: Partial<OnboardingRow> = {}): Omit<OnboardingRow, "deletedAt"> => ({
  id,
  orgId: "org_1",
  customerId,
  displayId,
  templateId: null,
  phase: "program_design",
  state: "active",
  startedAt: createdAt,
  completedAt: null,
  targetLaunchDate: "2027-01-15T09:00:00Z",
  csmId: null,
  seId: null,
  designerId: null,
  productOpsId: null,
  notes: null,
  waitingOnCustomer: false,
  waitingOnCustomerSince: null,
  wizardCompletedAt: null,
  reminderEmail: true,
  reminderSlack: false,
  reminderFrequencyDays: 3,
  createdAt,
  updatedAt: createdAt,
  phaseEnteredAt: createdAt,
  slaSuspendedMicros: 0,
  slaSuspendedSince: null,
  lastChangedMode: "live",
  ...over,
});

/** The same calls on either engine; what each returns is compared across engines. */
async function scenario(e: Engine): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  out.recap = await e.workspaces.launchRecapEnabled("org_1");
  out.recapUnknown = await e.workspaces.launchRecapEnabled("org_x");
  const customer = (n: number, status: "onboarding" | "active" = "onboarding") => ({
    id: `cus_${n}`, orgId: "org_1", displayId: n, name: `Customer ${n}`, slug: `c-${n}`, domain: n === 1 ? "one.example" : null,
    status, metadata: `{"n":${n}}`, createdAt: n * 100, updatedAt: n * 100,
  });
  await e.transaction(async () => {
    await e.customers.insert(customer(1));
    await e.customers.insert(customer(2, "active"));
    await e.customers.insert(customer(3));
  });
  out.byId = await e.customers.byId("org_1", "cus_2");
  out.byDisplayId = await e.customers.byDisplayId("org_1", 3);
  out.otherWorkspace = (await e.customers.byId("org_2", "cus_2")) ?? null;
  out.slugs = [await e.customers.slugInUse("org_1", "c-1"), await e.customers.slugInUse("org_1", "c-9")];
  out.page1 = await e.customers.page("org_1", MAX, 2);
  out.page2 = await e.customers.page("org_1", 200, 2);
  out.active = await e.customers.page("org_1", MAX, 10, "active");
  await e.customers.update({ ...customer(1), name: "Renamed", metadata: "{}", updatedAt: 150, deletedAt: null });
  out.updated = await e.customers.byId("org_1", "cus_1");

  const contact = (n: number, primary: boolean) => ({
    id: `con_${n}`, orgId: "org_1", customerId: "cus_1", displayId: n, name: `Contact ${n}`, email: `c${n}@x.example`, title: null,
    isPrimary: primary, createdAt: 400 + n, updatedAt: 400 + n,
  });
  await e.transaction(async () => {
    await e.contacts.insert(contact(1, true));
    await e.contacts.clearPrimary("cus_1", 450);
    await e.contacts.insert(contact(2, true));
  });
  out.contacts = await e.contacts.page("org_1", "cus_1", MAX, 10);
  out.contactByDisplay = await e.contacts.byDisplayId("org_1", "cus_1", 1);
  await e.contacts.update({ ...contact(1, false), title: "CTO", updatedAt: 460, deletedAt: null });
  out.contactUpdated = await e.contacts.byId("org_1", "cus_1", "con_1");

  await e.onboardings.insert(onboarding("onb_1", "cus_1", 1, 500));
  await e.onboardings.insert(onboarding("onb_2", "cus_1", 2, 510, { phase: "launch", state: "waiting", waitingOnCustomer: true, waitingOnCustomerSince: 505 }));
  await e.onboardings.insert(onboarding("onb_3", "cus_2", 3, 520));
  out.obAll = await e.onboardings.page("org_1", null, {}, MAX, 10);
  out.obLaunch = await e.onboardings.page("org_1", null, { phase: "launch" }, MAX, 10);
  out.obWaitingLaunch = await e.onboardings.page("org_1", null, { phase: "launch", state: "waiting" }, MAX, 10);
  out.obOfCustomer2 = await e.onboardings.page("org_1", "cus_2", {}, MAX, 10);
  out.obBefore = await e.onboardings.page("org_1", null, {}, 510, 1);
  const first = (await e.onboardings.byId("org_1", "onb_1"))!;
  await e.onboardings.update({ ...first, phase: "launch", notes: "go", waitingOnCustomer: true, waitingOnCustomerSince: 600, updatedAt: 600 });
  out.obUpdated = await e.onboardings.byDisplayId("org_1", 1);
  await e.onboardings.softDelete("onb_3", 650);
  out.obDeleted = (await e.onboardings.byId("org_1", "onb_3")) ?? null;

  await e.transaction(async () => e.customers.softDeleteCascade("cus_1", 700));
  out.cascade = {
    customer: (await e.customers.byId("org_1", "cus_1")) ?? null,
    contacts: await e.contacts.page("org_1", "cus_1", MAX, 10),
    onboardings: await e.onboardings.page("org_1", "cus_1", {}, MAX, 10),
  };

  const entry = { request_id: "req_1", org_id: "org_1", key_id: "key_1", actor: "crm", method: "POST", route: "/api/v1/customers", status: 201, address: null, duration_ms: 1.5, at: 800 };
  await e.activity.insert(entry);
  await e.activity.insert({ ...entry, status: 500 }); // the same request id again: one row
  await e.transaction(async () => {
    await e.outbox.add("org_1", "records", "activity.batch", { entries: [] }, 900);
  });
  const rolledBack = await e
    .transaction(async () => {
      await e.outbox.add("org_1", "records", "activity.batch", { entries: [] }, 901);
      throw new Error("rolled back");
    })
    .catch((error: Error) => error.message);
  out.outbox = { rolledBack, ...(await e.counts()) };
  return out;
}

const ORG = { id: "org_1", slug: "acme", name: "Acme", launchRecapEnabled: true, slackTokenEncrypted: null, createdAt: 1 };
const server = testPostgresUrl();

describe("the store adapters: SQLite and PostgreSQL answer the same calls with the same rows", () => {
  let sqliteResult: Record<string, unknown>;
  let pgResult: Record<string, unknown> | undefined;
  let cleanups: (() => Promise<void> | void)[] = [];
  beforeAll(async () => {
    const sqlite = freshDatabase();
    cleanups.push(() => sqlite.cleanup());
    const db = sqlite.db;
    db.insert(sqliteSchema.organizations).values(ORG).run();
    sqliteResult = await scenario({
      workspaces: createWorkspaceStore(db),
      customers: createCustomerStore(db),
      contacts: createContactStore(db),
      onboardings: createOnboardingStore(db),
      activity: createActivityStore(db),
      outbox: createOutboxWriter(db),
      // Nothing else runs on this connection here, so an explicit BEGIN … COMMIT around the
      // awaited step is a real transaction (the service layer's would also hold other requests out).
      async transaction(fn) {
        db.$client.exec("BEGIN IMMEDIATE");
        try {
          const result = await fn();
          db.$client.exec("COMMIT");
          return result;
        } catch (error) {
          db.$client.exec("ROLLBACK");
          throw error;
        }
      },
      async counts() {
        return {
          activity: db.select({ n: count() }).from(sqliteSchema.activityEntries).get()!.n,
          outbox: db.select({ n: count() }).from(sqliteSchema.outbox).get()!.n,
        };
      },
    });
    if (!server) return;
    const database = await freshPostgresDatabase(server);
    await migratePostgres(database.url);
    const pg = drizzle(connectPostgres(database.url, { poolSize: 4 }), { schema: pgSchema }) as PgDb;
    cleanups.push(async () => {
      await pg.$client.close();
      await database.drop();
    });
    await pg.insert(pgSchema.organizations).values(ORG);
    pgResult = await scenario({
      workspaces: createPgWorkspaceStore(pg),
      customers: createPgCustomerStore(pg),
      contacts: createPgContactStore(pg),
      onboardings: createPgOnboardingStore(pg),
      activity: createPgActivityStore(pg),
      outbox: createPgOutboxWriter(pg),
      transaction: (fn) => pgTransaction(pg, fn),
      async counts() {
        return {
          activity: (await pg.select({ n: count() }).from(pgSchema.activityEntries))[0]!.n,
          outbox: (await pg.select({ n: count() }).from(pgSchema.outbox))[0]!.n,
        };
      },
    });
  });
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    cleanups = [];
  });

  test("the scenario means something on SQLite", () => {
    expect(sqliteResult.slugs).toEqual([true, false]);
    expect((sqliteResult.page1 as { id: string }[]).map((r) => r.id)).toEqual(["cus_3", "cus_2"]);
    expect((sqliteResult.obWaitingLaunch as { id: string }[]).map((r) => r.id)).toEqual(["onb_2"]);
    expect((sqliteResult.contacts as { id: string; isPrimary: boolean }[]).map((r) => [r.id, r.isPrimary])).toEqual([["con_2", true], ["con_1", false]]);
    expect(sqliteResult.cascade).toEqual({ customer: null, contacts: [], onboardings: [] });
    expect(sqliteResult.outbox).toEqual({ rolledBack: "rolled back", activity: 1, outbox: 1 });
  });

  test.skipIf(!server)("PostgreSQL gives the same answers, row for row", () => {
    for (const key of Object.keys(sqliteResult)) expect({ key, value: pgResult![key] }).toEqual({ key, value: sqliteResult[key] });
  });
});
