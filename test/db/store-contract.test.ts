import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { count } from "drizzle-orm";
import { drizzle } from "drizzle-orm/bun-sql";
import { createPgApiKeyStore } from "../../api/auth/api-keys.pg.store.ts";
import { createApiKeyStore } from "../../api/auth/api-keys.store.ts";
import { createPgIdempotencyStore } from "../../api/idempotency/idempotency.pg.store.ts";
import { createIdempotencyStore } from "../../api/idempotency/idempotency.store.ts";
import { createPgSequences } from "../../api/sequences.pg.store.ts";
import { createSequences } from "../../api/sequences.store.ts";
import { createDeliveryStore } from "../../worker/deliveries.store.ts";
import { createLookups } from "../../worker/lookups.store.ts";
import { createPgOutboundStore } from "../../worker/outbound.pg.store.ts";
import { createOutboundStore } from "../../worker/outbound.store.ts";
import { createRecordsStore } from "../../worker/records.store.ts";
import { createPgDeliveryStore, createPgLookups, createPgRecordsStore } from "../../worker/worker.pg.store.ts";
import { createPgAdminAreaStore } from "../../api/admin-area/admin-area.pg.store.ts";
import { createAdminAreaStore } from "../../api/admin-area/admin-area.store.ts";
import { pgReportsStore } from "../../admin/reports.pg.store.ts";
import { reportsStore } from "../../admin/reports.store.ts";
import { pgWorkspaceStore } from "../../shared/workspaces.pg.store.ts";
import { workspaceStore } from "../../shared/workspaces.store.ts";
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

/** The second half: the stores of idempotency, keys, sequences and the worker. */
type Loose = Record<string, (...args: never[]) => unknown>;
interface WorkerEngine {
  idempotency: Loose;
  apiKeys: Loose;
  nextSequence: (orgId: string, kind: "customer", now: number) => unknown;
  records: Loose;
  deliveries: Loose;
  lookups: Loose;
  outbound: Loose;
  transaction<T>(fn: () => Promise<T>): Promise<T>;
  seed(): Promise<void>;
}

async function workerScenario(e: WorkerEngine): Promise<Record<string, unknown>> {
  await e.seed();
  const call = async (store: Loose, method: string, ...args: unknown[]) => await (store[method] as (...a: unknown[]) => unknown)(...args);
  const out: Record<string, unknown> = {};
  const ids = { apiKeyId: "key_9", key: "k-1" };
  out.idem = await e.transaction(async () => [
    await call(e.idempotency, "claim", ids, "fp", 1000),
    await call(e.idempotency, "claim", ids, "fp", 1001),
    await call(e.idempotency, "find", ids),
    await call(e.idempotency, "takeOver", ids, 999, 1002),
    await call(e.idempotency, "takeOver", ids, 1000, 1003),
  ]);
  await e.transaction(async () => call(e.idempotency, "complete", ids, 201, '{"ok":true}', 1004));
  out.idemDone = await e.transaction(async () => call(e.idempotency, "find", ids));
  await e.transaction(async () => call(e.idempotency, "claim", { apiKeyId: "key_9", key: "k-2" }, "fp2", 1005));
  await e.transaction(async () => call(e.idempotency, "release", { apiKeyId: "key_9", key: "k-2" }));
  out.released = (await e.transaction(async () => call(e.idempotency, "find", { apiKeyId: "key_9", key: "k-2" }))) ?? null;
  out.purged = await e.transaction(async () => call(e.idempotency, "purgeBefore", 1004));

  out.key = await call(e.apiKeys, "byHash", "hash-9");
  out.noKey = (await call(e.apiKeys, "byHash", "nope")) ?? null;
  out.keyWorkspace = await call(e.apiKeys, "workspace", "org_1");
  await call(e.apiKeys, "addUsage", [["key_9", { count: 3, lastUsedAt: 5000, lastUsedIp: "10.0.0.1" }]]);
  await call(e.apiKeys, "addUsage", [["key_9", { count: 2, lastUsedAt: 4000, lastUsedIp: null }]]);
  out.usage = await call(e.apiKeys, "byHash", "hash-9");

  out.sequence = await e.transaction(async () => [await e.nextSequence("org_1", "customer", 7000), await e.nextSequence("org_1", "customer", 7000), await e.nextSequence("org_1", "customer", 9000)]);

  const event = { source: "outbox-1", orgId: "org_1", customerId: "cus_9", onboardingId: "onb_9", data: '{"from":"review","to":"launch"}', actor: "crm", at: 100 };
  await call(e.records, "phaseChanged", event);
  await call(e.records, "phaseChanged", { ...event, actor: "again" });
  const transition = { source: "outbox-2", orgId: "org_1", customerId: "cus_9", onboardingId: "onb_9", from: "review", to: "launch", at: 100, actor: "crm", phaseEnteredAt: 50, slaSuspendedSeconds: 1.5 };
  await call(e.records, "transition", transition);
  await call(e.records, "transition", { ...transition, actor: "again" });
  const entry = { request_id: "req_9", org_id: "org_1", key_id: "key_9", actor: "crm", method: "GET", route: "/x", status: 200, address: "10.0.0.1", duration_ms: 0.25, at: 10 };
  await call(e.records, "activityBatch", [entry, entry, { ...entry, request_id: "req_10" }]);

  const delivery = { id: "dlv_1", source: "outbox-3", orgId: "org_1", onboardingId: "onb_9", kind: "launch.slack_dm", target: "usr_9" };
  out.opened = await call(e.deliveries, "open", delivery, 200);
  await call(e.deliveries, "startAttempt", "dlv_1", 201);
  await call(e.deliveries, "sending", "dlv_1", 202);
  await call(e.deliveries, "sending", "dlv_1", 203);
  await call(e.deliveries, "finish", "dlv_1", { status: "sent", detail: "ok", target: null }, 204);
  out.reopened = await call(e.deliveries, "open", { ...delivery, id: "dlv_other" }, 300);

  out.lookups = {
    onboarding: await call(e.lookups, "onboarding", "onb_9"),
    missing: (await call(e.lookups, "onboarding", "onb_x")) ?? null,
    csm: await call(e.lookups, "csmOf", "onb_9"),
    user: await call(e.lookups, "user", "org_1", "usr_9"),
    otherWorkspaceUser: (await call(e.lookups, "user", "org_2", "usr_9")) ?? null,
    contact: await call(e.lookups, "primaryContact", "cus_9"),
    token: await call(e.lookups, "slackToken", "org_1"),
  };

  await call(e.outbound, "calendarEntry", { source: "outbox-4", orgId: "org_1", customerId: "cus_9", onboardingId: "onb_9", title: "Launch", at: 400 });
  await call(e.outbound, "calendarEntry", { source: "outbox-4", orgId: "org_1", customerId: "cus_9", onboardingId: "onb_9", title: "Again", at: 401 });
  await call(e.outbound, "emailDraft", { source: "outbox-5", orgId: "org_1", onboardingId: "onb_9", to: "ada@x.example", subject: "Recap", raw: "raw", now: 402 });
  out.waiting = await call(e.outbound, "waiting");
  out.marks = [
    await call(e.outbound, "periodMarked", "onb_9", 1),
    await call(e.outbound, "markPeriod", "onb_9", 1, 500),
    await call(e.outbound, "markPeriod", "onb_9", 1, 501),
    await call(e.outbound, "periodMarked", "onb_9", 1),
  ];
  return out;
}

const MAX = Number.MAX_SAFE_INTEGER;

/** The admin area's store on either engine; run after the worker half (its rows are there). */
async function adminScenario(store: Loose, seed: () => Promise<void>): Promise<Record<string, unknown>> {
  await seed();
  const call = async (method: string, ...args: unknown[]) => await (store[method] as (...a: unknown[]) => unknown)(...args);
  const out: Record<string, unknown> = {};
  out.admins = await call("adminsByEmail", "ada@admin.example");
  await call("insertSession", { tokenHash: "tok-1", userId: "usr_a", orgId: "org_1", csrfToken: "csrf", now: 100, address: "10.0.0.1" });
  await call("insertSession", { tokenHash: "tok-2", userId: "usr_9", orgId: "org_1", csrfToken: "csrf2", now: 100, address: null });
  await call("touchSession", "tok-1", 150);
  out.session = await call("session", "tok-1");
  out.memberSession = (await call("session", "tok-2")) ?? null; // not an administrator: no session
  await call("purgeExpired", 120, 0, 0);
  out.afterPurge = [(await call("session", "tok-1")) ?? null, (await call("session", "tok-2")) ?? null];
  out.invite = await call("invite", "inv-1");
  out.useInvite = [await call("useInvite", "inv-1", 200), await call("useInvite", "inv-1", 201)];
  await call("setPassword", "org_1", "usr_9", "hash");
  await call("putLoginFailures", "address:1", 10, 1);
  await call("putLoginFailures", "address:1", 10, 2);
  out.failures = await call("loginFailures", "address:1");
  await call("clearLoginFailures", "address:1");
  out.cleared = (await call("loginFailures", "address:1")) ?? null;
  for (let n = 0; n < 3; n++) await call("audit", { orgId: "org_1", actorUserId: "usr_a", actor: "ada@admin.example", action: `act.${n}`, target: null, detail: null, address: null, at: 300 + n });
  const page = (await call("auditPage", "org_1", null, 2)) as { id: number }[];
  out.audit = [page, await call("auditPage", "org_1", page[1]!.id, 2)];
  out.nonces = [await call("claimFormNonce", "n-1", 1), await call("claimFormNonce", "n-1", 2)];
  await call("purgeFormNonces", 5);
  out.nonceAgain = await call("claimFormNonce", "n-1", 6);
  out.keys = await call("keys", "org_1");
  out.key = await call("key", "org_1", "key_9");
  out.users = await call("users", "org_1");
  out.user = await call("user", "org_1", "usr_a");
  out.organization = await call("organization", "org_1");
  out.onboardingRefs = [await call("onboardingId", "org_1", "9"), await call("onboardingId", "org_1", "onb_9"), await call("onboardingId", "org_2", "9")];
  out.deliveries = await call("deliveriesPage", "org_1", { onboardingId: null, status: null }, null, 10);
  out.deliveriesAfter = await call("deliveriesPage", "org_1", { onboardingId: "onb_9", status: "sending" }, { at: 900, id: "dlv_b" }, 10);
  out.activity = await call("activityPage", "org_1", null, null, 10);
  out.activityAfter = await call("activityPage", "org_1", "key_9", { at: 10, id: "req_a" }, 10);
  return out;
}

/** The command line's stores (functions taking the database first), run last. */
async function cliScenario(ws: Loose, reports: Loose, db: unknown): Promise<Record<string, unknown>> {
  const w = async (method: string, ...args: unknown[]) => await (ws[method] as (...a: unknown[]) => unknown)(db, ...args);
  const r = async (method: string, ...args: unknown[]) => await (reports[method] as (...a: unknown[]) => unknown)(db, ...args);
  const out: Record<string, unknown> = {};
  await w("insertOrganization", { id: "org_w", slug: "wayne", name: "Wayne", launchRecapEnabled: false, slackTokenEncrypted: null, createdAt: 2 });
  await w("updateOrganization", "org_w", { launchRecapEnabled: true, slackTokenEncrypted: "sealed" });
  out.org = await w("organizationBySlug", "wayne");
  out.orgs = ((await w("listOrganizations")) as { slug: string }[]).map((o) => o.slug);
  await w("insertApiKey", { id: "key_w", orgId: "org_w", name: "w", prefix: "svc_w", keyHash: "hash-w", mode: "live", rateLimitTier: "default", createdAt: 3, createdBy: null });
  await w("revokeApiKey", "key_w", 4);
  out.keys = await w("apiKeysOf", "org_w");
  out.key = await w("apiKeyById", "key_w");
  await w("insertUser", { id: "usr_w", orgId: "org_w", name: "Bruce", email: "bruce@w.example", slackUserId: null, createdAt: 5, role: "admin", passwordHash: null });
  await w("updateUser", "org_w", "usr_w", { name: "B. Wayne", role: "member", slackUserId: "U0BRUCE1" });
  out.user = [await w("userByEmail", "org_w", "bruce@w.example"), await w("userById", "org_w", "usr_w"), (await w("userById", "org_1", "usr_w")) ?? null];
  await w("replaceInvite", { tokenHash: "w-1", userId: "usr_w", orgId: "org_w", createdAt: 6, expiresAt: 7 });
  await w("replaceInvite", { tokenHash: "w-2", userId: "usr_w", orgId: "org_w", createdAt: 8, expiresAt: 9 });
  await w("deleteUser", "org_w", "usr_w");
  out.users = await w("usersOf", "org_w");
  out.refs = [await r("idByRef", "customers", "org_1", "9"), await r("idByRef", "onboardings", "org_1", "onb_9"), (await r("idByRef", "customers", "org_w", "9")) ?? null];
  out.timeline = await r("timelineOf", "cus_9");
  out.deliveries = await r("deliveriesOf", "org_1", null);
  out.deliveriesOfOne = await r("deliveriesOf", "org_1", "onb_9");
  return out;
}

const ADMIN_ROWS = {
  admin: { id: "usr_a", orgId: "org_1", name: "Ada", email: "ada@admin.example", slackUserId: null, createdAt: 11, role: "admin" as const, passwordHash: "argon" },
  revoked: { id: "key_r", orgId: "org_1", name: "old", prefix: "svc_old", keyHash: "hash-r", mode: "test" as const, rateLimitTier: "default" as const, createdAt: 20, createdBy: "ada@admin.example", revokedAt: 30 },
  invite: { tokenHash: "inv-1", userId: "usr_a", orgId: "org_1", createdAt: 40, expiresAt: 99_999 },
  deliveries: ["dlv_a", "dlv_B", "dlv_b"].map((id) => ({ id, source: `src-${id}`, orgId: "org_1", onboardingId: "onb_9", kind: "reminder.email", target: null, status: "sending" as const, detail: null, attempts: 0, createdAt: 900, updatedAt: 900 })),
  activity: ["req_A", "req_a"].map((requestId) => ({ requestId, orgId: "org_1", keyId: "key_9", actor: "crm", method: "GET", route: "/x", status: 200, address: null, durationMs: 1, at: 10 })),
};
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
  let sqliteWorker: Record<string, unknown>;
  let pgWorker: Record<string, unknown> | undefined;
  let sqliteAdmin: Record<string, unknown>;
  let pgAdmin: Record<string, unknown> | undefined;
  let sqliteCli: Record<string, unknown>;
  let pgCli: Record<string, unknown> | undefined;
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
    const sqliteTransaction = async <T,>(fn: () => Promise<T>): Promise<T> => {
      db.$client.exec("BEGIN IMMEDIATE");
      try {
        const result = await fn();
        db.$client.exec("COMMIT");
        return result;
      } catch (error) {
        db.$client.exec("ROLLBACK");
        throw error;
      }
    };
    const seedRows = (engine: typeof sqliteSchema | typeof pgSchema) => ({
      user: { id: "usr_9", orgId: "org_1", name: "Casey", email: "casey@x.example", slackUserId: "U0CASEY1", createdAt: 5, role: "member" as const, passwordHash: null },
      key: { id: "key_9", orgId: "org_1", name: "crm", prefix: "svc_abc", keyHash: "hash-9", mode: "live" as const, rateLimitTier: "paid" as const, createdAt: 6, createdBy: null },
      customer: { id: "cus_9", orgId: "org_1", displayId: 9, name: "Globex", slug: "globex", domain: null, status: "onboarding" as const, metadata: "{}", createdAt: 7, updatedAt: 7 },
      contact: { id: "con_9", orgId: "org_1", customerId: "cus_9", displayId: 9, name: "Ada", email: "ada@x.example", title: null, isPrimary: true, createdAt: 8, updatedAt: 8 },
      onboarding: onboarding("onb_9", "cus_9", 9, 9, { csmId: "usr_9", waitingOnCustomer: true, waitingOnCustomerSince: 9, reminderSlack: true }),
      engine,
    });
    sqliteWorker = await workerScenario({
      idempotency: createIdempotencyStore(db) as unknown as Loose,
      apiKeys: createApiKeyStore(db) as unknown as Loose,
      nextSequence: createSequences(db),
      records: createRecordsStore(db) as unknown as Loose,
      deliveries: createDeliveryStore(db) as unknown as Loose,
      lookups: createLookups(db) as unknown as Loose,
      outbound: createOutboundStore(db) as unknown as Loose,
      transaction: sqliteTransaction,
      async seed() {
        const r = seedRows(sqliteSchema);
        db.insert(sqliteSchema.users).values(r.user).run();
        db.insert(sqliteSchema.apiKeys).values(r.key).run();
        db.insert(sqliteSchema.customers).values(r.customer).run();
        db.insert(sqliteSchema.contacts).values(r.contact).run();
        db.insert(sqliteSchema.onboardings).values(r.onboarding).run();
      },
    });
    sqliteAdmin = await adminScenario(createAdminAreaStore(db) as unknown as Loose, async () => {
      db.insert(sqliteSchema.users).values(ADMIN_ROWS.admin).run();
      db.insert(sqliteSchema.apiKeys).values(ADMIN_ROWS.revoked).run();
      db.insert(sqliteSchema.invites).values(ADMIN_ROWS.invite).run();
      db.insert(sqliteSchema.deliveries).values(ADMIN_ROWS.deliveries).run();
      db.insert(sqliteSchema.activityEntries).values(ADMIN_ROWS.activity).run();
    });
    sqliteCli = await cliScenario(workspaceStore as unknown as Loose, reportsStore as unknown as Loose, db);
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
    pgWorker = await workerScenario({
      idempotency: createPgIdempotencyStore(pg) as unknown as Loose,
      apiKeys: createPgApiKeyStore(pg) as unknown as Loose,
      nextSequence: createPgSequences(pg),
      records: createPgRecordsStore(pg) as unknown as Loose,
      deliveries: createPgDeliveryStore(pg) as unknown as Loose,
      lookups: createPgLookups(pg) as unknown as Loose,
      outbound: createPgOutboundStore(pg) as unknown as Loose,
      transaction: (fn) => pgTransaction(pg, fn),
      async seed() {
        const r = seedRows(pgSchema);
        await pg.insert(pgSchema.users).values(r.user);
        await pg.insert(pgSchema.apiKeys).values(r.key);
        await pg.insert(pgSchema.customers).values(r.customer);
        await pg.insert(pgSchema.contacts).values(r.contact);
        await pg.insert(pgSchema.onboardings).values(r.onboarding);
      },
    });
    pgAdmin = await adminScenario(createPgAdminAreaStore(pg) as unknown as Loose, async () => {
      await pg.insert(pgSchema.users).values(ADMIN_ROWS.admin);
      await pg.insert(pgSchema.apiKeys).values(ADMIN_ROWS.revoked);
      await pg.insert(pgSchema.invites).values(ADMIN_ROWS.invite);
      await pg.insert(pgSchema.deliveries).values(ADMIN_ROWS.deliveries);
      await pg.insert(pgSchema.activityEntries).values(ADMIN_ROWS.activity);
    });
    pgCli = await cliScenario(pgWorkspaceStore as unknown as Loose, pgReportsStore as unknown as Loose, pg);
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

  test("the worker half means something on SQLite", () => {
    expect((sqliteWorker.idem as unknown[]).slice(0, 2)).toEqual([true, false]);
    expect((sqliteWorker.idem as unknown[]).slice(3)).toEqual([false, true]);
    expect(sqliteWorker.released).toBeNull();
    expect(sqliteWorker.purged).toBe(1); // k-1, created at 1000, before the cutoff
    expect(sqliteWorker.usage).toMatchObject({ keyId: "key_9" });
    expect(sqliteWorker.sequence).toEqual([{ displayId: 1, createdAt: 7000 }, { displayId: 2, createdAt: 7001 }, { displayId: 3, createdAt: 9000 }]);
    expect(sqliteWorker.reopened).toMatchObject({ id: "dlv_1", status: "sent", attempts: 1, sendStartedAt: 202 });
    expect(sqliteWorker.marks).toEqual([false, true, false, true]);
    expect((sqliteWorker.waiting as { id: string }[]).map((w) => w.id)).toEqual(["onb_9"]);
  });

  test("the admin half means something on SQLite", () => {
    expect(sqliteAdmin.memberSession).toBeNull();
    expect(sqliteAdmin.useInvite).toEqual([true, false]);
    expect(sqliteAdmin.nonces).toEqual([true, false]);
    expect(sqliteAdmin.nonceAgain).toBe(true);
    expect((sqliteAdmin.keys as { id: string }[]).map((k) => k.id)).toEqual(["key_9", "key_r"]);
    expect((sqliteAdmin.deliveries as { id: string }[]).map((d) => d.id).slice(0, 3)).toEqual(["dlv_b", "dlv_a", "dlv_B"]);
    expect((sqliteAdmin.activity as { requestId: string }[]).map((a) => a.requestId)).toEqual(["req_1", "req_a", "req_A", "req_9", "req_10"]);
  });

  test("the command line's stores mean something on SQLite", () => {
    expect(sqliteCli.orgs).toEqual(["acme", "wayne"]);
    expect(sqliteCli.users).toEqual([]);
    expect(sqliteCli.refs).toEqual(["cus_9", "onb_9", null]);
    expect((sqliteCli.timeline as unknown[]).length).toBe(1);
  });

  test.skipIf(!server)("PostgreSQL gives the same answers for the command line's stores", () => {
    for (const key of Object.keys(sqliteCli)) expect({ key, value: pgCli![key] }).toEqual({ key, value: sqliteCli[key] });
  });

  test.skipIf(!server)("PostgreSQL gives the same answers in the admin half, row for row", () => {
    for (const key of Object.keys(sqliteAdmin)) expect({ key, value: pgAdmin![key] }).toEqual({ key, value: sqliteAdmin[key] });
  });

  test.skipIf(!server)("PostgreSQL gives the same answers in the worker half, row for row", () => {
    for (const key of Object.keys(sqliteWorker)) expect({ key, value: pgWorker![key] }).toEqual({ key, value: sqliteWorker[key] });
  });

  test.skipIf(!server)("PostgreSQL gives the same answers, row for row", () => {
    for (const key of Object.keys(sqliteResult)) expect({ key, value: pgResult![key] }).toEqual({ key, value: sqliteResult[key] });
  });
});
