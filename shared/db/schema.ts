import { sql } from "drizzle-orm";
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
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
  /** The workspace's Slack bot token, AES-256-GCM under a key derived from SECRET_KEY. */
  slackTokenEncrypted: text("slack_token_encrypted"),
  createdAt: micros("created_at").notNull(),
});

/** People of a workspace; an onboarding's `csm_id` and the other assignees name them. */
export const users = sqliteTable(
  "users",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id").notNull().references(() => organizations.id),
    name: text("name").notNull(),
    email: text("email").notNull(),
    slackUserId: text("slack_user_id"),
    createdAt: micros("created_at").notNull(),
    /** `admin` may sign in to the admin area; `member` (CSMs and other assignees) may not. */
    role: text("role").$type<UserRole>().notNull().default("member"),
    /** argon2id (Bun.password); null until the user follows an invite link. */
    passwordHash: text("password_hash"),
  },
  (t) => [index("users_org_idx").on(t.orgId, t.createdAt), index("users_email_idx").on(t.email)],
);

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
    /** Who created the key: an administrator's e-mail, or null for the operator's command line. */
    createdBy: text("created_by"),
  },
  (t) => [index("api_keys_org_idx").on(t.orgId, t.createdAt)],
);

/**
 * One row whose `revision` grows whenever any key's identity changes (revoked, renamed,
 * re-tiered, moved or deleted). Triggers on `api_keys` bump it (migration
 * `auth_revision`), so no writer, here or in a future tool, can forget to. The API caches
 * keys by their hash and reads this row on every request: a revocation holds from the next
 * request in every process, for the price of a one-row read instead of a key lookup.
 */
export const authRevision = sqliteTable("auth_revision", {
  id: integer("id").primaryKey(),
  revision: integer("revision").notNull(),
});

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
    /** `target_launch_date` as an instant (µs), set with it: the admin area's overdue list compares it with now. */
    targetLaunchAt: micros("target_launch_at"),
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
    // The reminder scan reads only onboardings waiting on their customer.
    index("onboardings_waiting_idx").on(t.waitingOnCustomerSince).where(sql`waiting_on_customer = 1 AND deleted_at IS NULL`),
    // The admin area's overview and list (api/admin-area/onboarding-pages.store.ts).
    index("onboardings_org_waiting_idx").on(t.orgId, t.waitingOnCustomerSince).where(sql`waiting_on_customer AND deleted_at IS NULL`),
    index("onboardings_overdue_idx").on(t.orgId, t.targetLaunchAt).where(sql`deleted_at IS NULL AND phase NOT IN ('launch', 'completed')`),
    index("onboardings_csm_list_idx").on(t.orgId, t.csmId, t.createdAt).where(notDeleted),
  ],
);

/**
 * Side effects of a request, written in the request's own transaction. The outbox, not Redis,
 * is the truth: the relay hands each row to BullMQ as job `outbox-<id>` and sets `relayed_at`;
 * the worker sets `completed_at` when the effect reached its outcome. A row relayed but not
 * completed within a bound is handed over again under the same job id (see api/outbox/).
 */
export const outbox = sqliteTable(
  "outbox",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    /** Null for rows that span workspaces (a batch of activity entries). */
    orgId: text("org_id"),
    queue: text("queue").notNull(),
    name: text("name").notNull(),
    payload: text("payload").notNull(),
    createdAt: micros("created_at").notNull(),
    relayedAt: micros("relayed_at"),
    completedAt: micros("completed_at"),
  },
  (t) => [
    index("outbox_pending_idx").on(t.id).where(sql`relayed_at IS NULL`),
    // What the reconciler walks: handed to Redis, effect not yet recorded.
    index("outbox_unfinished_idx").on(t.id).where(sql`relayed_at IS NOT NULL AND completed_at IS NULL`),
    // Retention: finished rows, oldest outcome first.
    index("outbox_completed_idx").on(t.completedAt).where(sql`completed_at IS NOT NULL`),
  ],
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

// Records the worker writes. `source` is the job that wrote the row (`outbox-<id>` and the
// like): its unique index makes every handler safe to run twice.

export const timelineEvents = sqliteTable(
  "timeline_events",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    source: text("source").notNull().unique(),
    orgId: text("org_id").notNull(),
    customerId: text("customer_id").notNull(),
    onboardingId: text("onboarding_id"),
    kind: text("kind").notNull(),
    /** JSON details of the event (for a phase change: from, to). */
    data: text("data").notNull(),
    actor: text("actor").notNull(),
    at: micros("at").notNull(),
  },
  (t) => [index("timeline_customer_idx").on(t.customerId, t.at)],
);

export const phaseTransitions = sqliteTable(
  "phase_transitions",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    source: text("source").notNull().unique(),
    orgId: text("org_id").notNull(),
    customerId: text("customer_id").notNull(),
    onboardingId: text("onboarding_id").notNull(),
    fromPhase: text("from_phase").notNull(),
    toPhase: text("to_phase").notNull(),
    at: micros("at").notNull(),
    actor: text("actor").notNull(),
    phaseEnteredAt: micros("phase_entered_at").notNull(),
    slaSuspendedSeconds: real("sla_suspended_seconds").notNull(),
    /** The visit's SLA time: from phase_entered_at to at, less the suspended seconds. */
    activeSeconds: real("active_seconds").notNull().default(0),
    /** Whether this is the onboarding's first move into `launch` (the report's launches). */
    firstLaunch: integer("first_launch", { mode: "boolean" }).notNull().default(false),
    /** On a first launch with a target date then: seconds past the end of that day (UTC), 0 when on time. */
    launchDelaySeconds: real("launch_delay_seconds"),
  },
  (t) => [
    index("phase_transitions_onboarding_idx").on(t.onboardingId, t.at),
    // The report's reads of single visits: a period's edges, and one customer's.
    index("phase_transitions_org_at_idx").on(t.orgId, t.at, t.fromPhase, t.activeSeconds),
    index("phase_transitions_customer_idx").on(t.orgId, t.customerId, t.at),
    // The overview's launches of the month.
    index("phase_transitions_launch_idx").on(t.orgId, t.at).where(sql`first_launch`),
  ],
);

/**
 * The phase-duration report's stored aggregate: visits that ended in a month (UTC, `YYYY-MM`),
 * by phase and by duration bucket (2% wide, shared/phase-durations.ts), with their active
 * seconds summed. Written in the transaction of the change that ends the visit; a report over
 * whole months reads these rows only, never the transitions.
 */
export const phaseVisitMonths = sqliteTable(
  "phase_visit_months",
  {
    orgId: text("org_id").notNull(),
    month: text("month").notNull(),
    phase: text("phase").$type<Phase>().notNull(),
    bucket: integer("bucket").notNull(),
    visits: integer("visits").notNull(),
    activeSeconds: real("active_seconds").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.month, t.phase, t.bucket] })],
);

/** First launches by month (UTC): on time, late (with their delay summed), the rest had no target date. */
export const launchMonths = sqliteTable(
  "launch_months",
  {
    orgId: text("org_id").notNull(),
    month: text("month").notNull(),
    launches: integer("launches").notNull(),
    onTime: integer("on_time").notNull(),
    late: integer("late").notNull(),
    delaySeconds: real("delay_seconds").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.month] })],
);

/** One entry per authenticated API call; the request id makes a re-delivered batch harmless. */
export const activityEntries = sqliteTable(
  "activity_entries",
  {
    requestId: text("request_id").primaryKey(),
    orgId: text("org_id").notNull(),
    keyId: text("key_id").notNull(),
    actor: text("actor").notNull(),
    method: text("method").notNull(),
    route: text("route").notNull(),
    status: integer("status").notNull(),
    address: text("address"),
    durationMs: real("duration_ms").notNull(),
    at: micros("at").notNull(),
    /** Calls this entry stands for: 429 refusals of one key within one second are one entry. */
    repeatCount: integer("repeat_count").notNull().default(1),
  },
  // activity_at_idx: retention deletes the oldest entries first, in slices.
  (t) => [index("activity_org_idx").on(t.orgId, t.at), index("activity_at_idx").on(t.at)],
);

/**
 * Activity entries the API holds in memory before writing them (read calls', replays', errors',
 * a second's refusals): each workspace's entries of one flush as one row, their JSON text in
 * `entries`, instead of a row (and three index entries) each (bench/RESULTS.md, issue #26's
 * twenty-sixth pass). A flush's page gets its id when the flush makes it and keeps it across
 * retries, so a page written twice is one row. The changes made through a batcher
 * (api/http/together.ts, a batch of one included) write their entries as pages too, each
 * workspace's of the batch one row, in the batch's transaction; a change made by its route's
 * handler writes its entry as a row of `activity_entries`, in its transaction. Read with them by
 * the activity store; pruned whole once `last_at` is past the window.
 */
export const activityPages = sqliteTable(
  "activity_pages",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id").notNull(),
    firstAt: micros("first_at").notNull(),
    lastAt: micros("last_at").notNull(),
    entryCount: integer("entry_count").notNull(),
    entries: text("entries").notNull(),
  },
  (t) => [index("activity_pages_org_idx").on(t.orgId, t.lastAt), index("activity_pages_at_idx").on(t.lastAt)],
);

export const calendarEntries = sqliteTable("calendar_entries", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  source: text("source").notNull().unique(),
  orgId: text("org_id").notNull(),
  customerId: text("customer_id").notNull(),
  onboardingId: text("onboarding_id").notNull(),
  kind: text("kind").notNull(),
  title: text("title").notNull(),
  at: micros("at").notNull(),
});

export const emailDrafts = sqliteTable("email_drafts", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  source: text("source").notNull().unique(),
  orgId: text("org_id").notNull(),
  onboardingId: text("onboarding_id").notNull(),
  toAddress: text("to_address").notNull(),
  subject: text("subject").notNull(),
  /** The whole RFC 5322 message as nodemailer's composer built it. */
  raw: text("raw").notNull(),
  createdAt: micros("created_at").notNull(),
});

/**
 * `uncertain`: an earlier attempt may have sent and whether it did cannot be found out (Slack's
 * history could not be read); the service does not send again rather than risk a duplicate.
 */
export type DeliveryStatus = "sending" | "sent" | "skipped" | "failed" | "uncertain";

/** The outcome of every outbound job: what was attempted, for whom, and how it ended. */
export const deliveries = sqliteTable(
  "deliveries",
  {
    id: text("id").primaryKey(),
    source: text("source").notNull().unique(),
    orgId: text("org_id").notNull(),
    onboardingId: text("onboarding_id").notNull(),
    kind: text("kind").notNull(),
    target: text("target"),
    status: text("status").$type<DeliveryStatus>().notNull(),
    detail: text("detail"),
    attempts: integer("attempts").notNull(),
    /** When an attempt first handed the message to its service: a retry looks for it from then on. */
    sendStartedAt: micros("send_started_at"),
    createdAt: micros("created_at").notNull(),
    updatedAt: micros("updated_at").notNull(),
  },
  (t) => [
    index("deliveries_org_idx").on(t.orgId, t.createdAt),
    index("deliveries_onboarding_idx").on(t.onboardingId, t.createdAt),
    // Retention: the oldest finished deliveries first.
    index("deliveries_updated_idx").on(t.updatedAt),
  ],
);

/** Reminder periods already queued, so each period of waiting sends at most one reminder. */
export const reminderMarks = sqliteTable(
  "reminder_marks",
  {
    onboardingId: text("onboarding_id").notNull(),
    period: integer("period").notNull(),
    queuedAt: micros("queued_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.onboardingId, t.period] })],
);

export type UserRole = "admin" | "member";

// The admin area: invites, sessions, sign-in throttling and the audit log.

/** A one-time link to set a password; only the SHA-256 of its token is kept. */
export const invites = sqliteTable(
  "invites",
  {
    tokenHash: text("token_hash").primaryKey(),
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    orgId: text("org_id").notNull().references(() => organizations.id),
    createdAt: micros("created_at").notNull(),
    expiresAt: micros("expires_at").notNull(),
    usedAt: micros("used_at"),
  },
  (t) => [index("invites_user_idx").on(t.userId)],
);

/** A signed-in administrator; the cookie holds a random token, the row only its SHA-256. */
export const adminSessions = sqliteTable(
  "admin_sessions",
  {
    tokenHash: text("token_hash").primaryKey(),
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    orgId: text("org_id").notNull().references(() => organizations.id),
    /** Per-session token every state-changing form carries. */
    csrfToken: text("csrf_token").notNull(),
    createdAt: micros("created_at").notNull(),
    lastSeenAt: micros("last_seen_at").notNull(),
    address: text("address"),
  },
  (t) => [index("admin_sessions_user_idx").on(t.userId)],
);

/** Failed sign-ins per bucket (`address:…` or `account:…`) in a fixed window, shared by every process. */
export const loginFailures = sqliteTable("login_failures", {
  bucket: text("bucket").primaryKey(),
  windowStartedAt: micros("window_started_at").notNull(),
  failures: integer("failures").notNull(),
});

/** Every administrator action: who, what, when, from which address. */
export const auditLog = sqliteTable(
  "audit_log",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    orgId: text("org_id").notNull().references(() => organizations.id),
    actorUserId: text("actor_user_id"),
    /** The actor's e-mail at the time (kept after the user is removed), or `operator`. */
    actor: text("actor").notNull(),
    action: text("action").notNull(),
    target: text("target"),
    detail: text("detail"),
    address: text("address"),
    at: micros("at").notNull(),
  },
  (t) => [index("audit_log_org_idx").on(t.orgId, t.at), index("audit_log_at_idx").on(t.at)],
);

/** Create-key forms already handled, so a resubmitted form never makes a second key. */
export const formSubmissions = sqliteTable("form_submissions", {
  nonce: text("nonce").primaryKey(),
  at: micros("at").notNull(),
});

/**
 * The change feed (`GET /api/v1/events`): one row per change of a customer, contact or
 * onboarding, written in the change's own transaction. `position` counts a workspace's events
 * from 1 with no gaps, in commit order: a change takes its positions from `event_positions` as
 * its last statement and holds that row's lock until it commits (see shared/db/events.store.ts).
 * Kept `EVENTS_RETENTION`.
 */
export const events = sqliteTable(
  "events",
  {
    orgId: text("org_id").notNull(),
    position: integer("position").notNull(),
    id: text("id").notNull(),
    type: text("type").notNull(),
    objectId: text("object_id").notNull(),
    livemode: integer("livemode", { mode: "boolean" }).notNull(),
    actorType: text("actor_type").notNull(),
    actorName: text("actor_name").notNull(),
    requestId: text("request_id"),
    idempotencyKey: text("idempotency_key"),
    /** `{"object": …, "previous_attributes": …}` as JSON: the event's `data`. */
    data: text("data").notNull(),
    createdAt: micros("created_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.position] }),
    uniqueIndex("events_id_uq").on(t.id),
    index("events_object_idx").on(t.orgId, t.objectId, t.position),
    // A page of some types reads each type's run from `after` (events.store.ts), never the whole feed.
    index("events_type_idx").on(t.orgId, t.type, t.position),
    // No index on created_at: retention takes each workspace's oldest positions from the primary key (retention.store.ts).
  ],
);

/** The last event position each workspace has handed out. */
export const eventPositions = sqliteTable("event_positions", {
  orgId: text("org_id").primaryKey(),
  lastPosition: integer("last_position").notNull(),
});

/**
 * Webhook endpoints: where a workspace's events are POSTed (api/webhooks). The secret is sealed
 * with SECRET_KEY (shared/secrets.ts) like the Slack token; after a rotation the previous one
 * signs beside it until `previous_secret_expires_at`. `failing_since` is the first failure
 * since the last success: five days of it disable the endpoint.
 */
export const webhookEndpoints = sqliteTable(
  "webhook_endpoints",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id").notNull(),
    url: text("url").notNull(),
    description: text("description"),
    /** JSON array of types, family patterns (`onboarding.*`) or `*`. */
    enabledEvents: text("enabled_events").notNull(),
    status: text("status").$type<"enabled" | "disabled">().notNull(),
    disabledReason: text("disabled_reason"),
    secret: text("secret").notNull(),
    previousSecret: text("previous_secret"),
    previousSecretExpiresAt: micros("previous_secret_expires_at"),
    failingSince: micros("failing_since"),
    createdAt: micros("created_at").notNull(),
    updatedAt: micros("updated_at").notNull(),
  },
  (t) => [index("webhook_endpoints_org_idx").on(t.orgId, t.createdAt)],
);

/**
 * One row per try of a delivery (or a ping), written by the worker: the endpoint's attempts
 * log, and what `recover` reads to find the events not yet delivered. Kept
 * `WEBHOOK_ATTEMPTS_RETENTION`.
 */
export const webhookAttempts = sqliteTable(
  "webhook_attempts",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id").notNull(),
    endpointId: text("endpoint_id").notNull(),
    eventId: text("event_id").notNull(),
    attempt: integer("attempt").notNull(),
    /** The answer's status; null when none came (refused address, timeout, connection error). */
    statusCode: integer("status_code"),
    durationMs: real("duration_ms").notNull(),
    error: text("error"),
    /** At most 1 KiB of the answer's body. */
    responseExcerpt: text("response_excerpt"),
    createdAt: micros("created_at").notNull(),
    /** When the next try is due; null when this was the last (delivered, or given up). */
    nextAttemptAt: micros("next_attempt_at"),
  },
  (t) => [
    index("webhook_attempts_endpoint_idx").on(t.endpointId, t.createdAt),
    index("webhook_attempts_event_idx").on(t.endpointId, t.eventId),
    index("webhook_attempts_created_idx").on(t.createdAt),
  ],
);

/**
 * The installation this database is, in one row made by the first process that starts on it.
 * Its id marks the Redis queue prefix the installation's processes use
 * (shared/jobs/queue-prefix-owner.ts), so a second installation pointed at the same Redis and
 * prefix is refused instead of mixing its jobs with this one's. Copied by `db copy`, so a move
 * to PostgreSQL stays the same installation.
 */
export const installation = sqliteTable("installation", {
  /** Always 1: the table holds one row. */
  singleton: integer("singleton").primaryKey(),
  /** `ins_…`, random. */
  id: text("id").notNull(),
  createdAt: micros("created_at").notNull(),
});

export type OrganizationRow = typeof organizations.$inferSelect;
export type ApiKeyRow = typeof apiKeys.$inferSelect;
export type CustomerRow = typeof customers.$inferSelect;
export type ContactRow = typeof contacts.$inferSelect;
export type OnboardingRow = typeof onboardings.$inferSelect;
export type OutboxRow = typeof outbox.$inferInsert;
export type UserRow = typeof users.$inferSelect;
export type DeliveryRow = typeof deliveries.$inferSelect;
export type EventRow = typeof events.$inferSelect;
export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;
export type WebhookAttemptRow = typeof webhookAttempts.$inferSelect;
export type PhaseTransitionRow = typeof phaseTransitions.$inferSelect;
export type PhaseVisitMonthRow = typeof phaseVisitMonths.$inferSelect;
