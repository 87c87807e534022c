import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { CustomerStatus, KeyMode, OnboardingState, Phase, RateLimitTier, SequencedKind } from "../domain.ts";

// Every timestamp column holds integer microseconds since the epoch (see shared/clock.ts),
// except the two datetimes a client supplies, which are kept exactly as sent.
const micros = (name: string) => integer(name);
const notDeleted = sql`deleted_at IS NULL`;

export const organizations = sqliteTable("organizations", {
  id: text("id").primaryKey(),
  slug: text("slug").notNull().unique(),
  name: text("name").notNull(),
  launchRecapEnabled: integer("launch_recap_enabled", { mode: "boolean" }).notNull().default(false),
  createdAt: micros("created_at").notNull(),
});

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id").notNull().references(() => organizations.id),
    name: text("name").notNull(),
    /** First 12 characters of the key: safe to show and log. */
    prefix: text("prefix").notNull(),
    /** SHA-256 of the whole key, hex. The key itself is never stored. */
    keyHash: text("key_hash").notNull().unique(),
    mode: text("mode").$type<KeyMode>().notNull(),
    rateLimitTier: text("rate_limit_tier").$type<RateLimitTier>().notNull().default("default"),
    createdAt: micros("created_at").notNull(),
    revokedAt: micros("revoked_at"),
    lastUsedAt: micros("last_used_at"),
    lastUsedIp: text("last_used_ip"),
    requestCount: integer("request_count").notNull().default(0),
  },
  (t) => [index("api_keys_org_idx").on(t.orgId, t.createdAt)],
);

/**
 * One row per workspace and resource kind: the last `display_id` handed out and the last
 * `created_at`. A create bumps both in one upsert inside its write transaction, which makes
 * display ids sequential and never reused, and `created_at` strictly increasing, even when
 * several API processes create at the same microsecond.
 */
export const sequences = sqliteTable(
  "sequences",
  {
    orgId: text("org_id").notNull().references(() => organizations.id),
    kind: text("kind").$type<SequencedKind>().notNull(),
    lastDisplayId: integer("last_display_id").notNull(),
    lastCreatedAt: micros("last_created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.kind] })],
);

export const customers = sqliteTable(
  "customers",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id").notNull().references(() => organizations.id),
    displayId: integer("display_id").notNull(),
    name: text("name").notNull(),
    slug: text("slug").notNull(),
    domain: text("domain"),
    status: text("status").$type<CustomerStatus>().notNull(),
    /** The client's JSON object, serialised as received. */
    metadata: text("metadata").notNull(),
    createdAt: micros("created_at").notNull(),
    updatedAt: micros("updated_at").notNull(),
    deletedAt: micros("deleted_at"),
  },
  (t) => [
    uniqueIndex("customers_display_id_uq").on(t.orgId, t.displayId),
    uniqueIndex("customers_slug_live_uq").on(t.orgId, t.slug).where(notDeleted),
    index("customers_list_idx").on(t.orgId, t.createdAt).where(notDeleted),
    index("customers_status_list_idx").on(t.orgId, t.status, t.createdAt).where(notDeleted),
  ],
);

export const contacts = sqliteTable(
  "contacts",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id").notNull().references(() => organizations.id),
    customerId: text("customer_id").notNull().references(() => customers.id),
    displayId: integer("display_id").notNull(),
    name: text("name").notNull(),
    email: text("email"),
    title: text("title"),
    isPrimary: integer("is_primary", { mode: "boolean" }).notNull(),
    createdAt: micros("created_at").notNull(),
    updatedAt: micros("updated_at").notNull(),
    deletedAt: micros("deleted_at"),
  },
  (t) => [
    uniqueIndex("contacts_display_id_uq").on(t.orgId, t.displayId),
    index("contacts_list_idx").on(t.customerId, t.createdAt).where(notDeleted),
    // The database itself refuses a second primary contact; the service clears the old one first.
    uniqueIndex("contacts_one_primary_uq").on(t.customerId).where(sql`is_primary = 1 AND deleted_at IS NULL`),
  ],
);

export const onboardings = sqliteTable(
  "onboardings",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id").notNull().references(() => organizations.id),
    customerId: text("customer_id").notNull().references(() => customers.id),
    displayId: integer("display_id").notNull(),
    templateId: text("template_id"),
    phase: text("phase").$type<Phase>().notNull(),
    state: text("state").$type<OnboardingState>().notNull(),
    startedAt: micros("started_at").notNull(),
    completedAt: micros("completed_at"),
    targetLaunchDate: text("target_launch_date"),
    csmId: text("csm_id"),
    seId: text("se_id"),
    designerId: text("designer_id"),
    productOpsId: text("product_ops_id"),
    notes: text("notes"),
    waitingOnCustomer: integer("waiting_on_customer", { mode: "boolean" }).notNull(),
    waitingOnCustomerSince: micros("waiting_on_customer_since"),
    wizardCompletedAt: text("wizard_completed_at"),
    reminderEmail: integer("reminder_email", { mode: "boolean" }).notNull(),
    reminderSlack: integer("reminder_slack", { mode: "boolean" }).notNull(),
    reminderFrequencyDays: integer("reminder_frequency_days").notNull(),
    createdAt: micros("created_at").notNull(),
    updatedAt: micros("updated_at").notNull(),
    deletedAt: micros("deleted_at"),
    // SLA bookkeeping, never shown: when the current phase began, and how long within it the
    // clock has been suspended (state `waiting` with `waiting_on_customer`).
    phaseEnteredAt: micros("phase_entered_at").notNull(),
    slaSuspendedMicros: integer("sla_suspended_micros").notNull().default(0),
    slaSuspendedSince: micros("sla_suspended_since"),
    /** Mode of the key that last changed the record: reminders skip test-mode records. */
    lastChangedMode: text("last_changed_mode").$type<KeyMode>().notNull(),
  },
  (t) => [
    uniqueIndex("onboardings_display_id_uq").on(t.orgId, t.displayId),
    index("onboardings_list_idx").on(t.orgId, t.createdAt).where(notDeleted),
    index("onboardings_phase_list_idx").on(t.orgId, t.phase, t.createdAt).where(notDeleted),
    index("onboardings_state_list_idx").on(t.orgId, t.state, t.createdAt).where(notDeleted),
    index("onboardings_phase_state_list_idx").on(t.orgId, t.phase, t.state, t.createdAt).where(notDeleted),
    index("onboardings_customer_list_idx").on(t.customerId, t.createdAt).where(notDeleted),
  ],
);

/**
 * Side effects of a request, written in the request's own transaction. The relay moves each
 * row into BullMQ with job id `outbox-<id>` and marks it relayed.
 */
export const outbox = sqliteTable(
  "outbox",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    orgId: text("org_id").notNull(),
    queue: text("queue").notNull(),
    name: text("name").notNull(),
    payload: text("payload").notNull(),
    createdAt: micros("created_at").notNull(),
    relayedAt: micros("relayed_at"),
  },
  (t) => [index("outbox_pending_idx").on(t.id).where(sql`relayed_at IS NULL`)],
);

/**
 * One row per (API key, Idempotency-Key). Claimed by inserting `pending` on the primary key
 * (never select-then-insert); completed in the same transaction as the record it created.
 */
export const idempotencyKeys = sqliteTable(
  "idempotency_keys",
  {
    apiKeyId: text("api_key_id").notNull(),
    key: text("key").notNull(),
    /** SHA-256 of method, path and canonical JSON body. */
    fingerprint: text("fingerprint").notNull(),
    claimedAt: micros("claimed_at").notNull(),
    completedAt: micros("completed_at"),
    responseStatus: integer("response_status"),
    responseBody: text("response_body"),
    createdAt: micros("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.apiKeyId, t.key] }), index("idempotency_keys_created_idx").on(t.createdAt)],
);

export type OrganizationRow = typeof organizations.$inferSelect;
export type ApiKeyRow = typeof apiKeys.$inferSelect;
export type CustomerRow = typeof customers.$inferSelect;
export type ContactRow = typeof contacts.$inferSelect;
export type OnboardingRow = typeof onboardings.$inferSelect;
export type OutboxRow = typeof outbox.$inferInsert;
