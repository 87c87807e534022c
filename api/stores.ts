import type { Database } from "../shared/db/database.ts";
import type { MaybePromise, StoreOf } from "../shared/db/flow.ts";
import type { JobName, JobPayload, QueueName } from "../shared/jobs/catalog.ts";
import { createActivityStore } from "../shared/db/activity.store.ts";
import { createPgActivityStore, createPgOutboxWriter } from "../shared/db/activity-outbox.pg.store.ts";
import { createHealthStore } from "../shared/db/health.store.ts";
import { createPgHealthStore } from "../shared/db/health.pg.store.ts";
import { createOutboxStore } from "../shared/db/outbox.store.ts";
import { createPgOutboxStore } from "../shared/db/outbox.pg.store.ts";
import { createOutboxWriter } from "../shared/db/outbox-writer.store.ts";
import { createMetricsStore } from "./admin/metrics.store.ts";
import { createAdminAreaStore } from "./admin-area/admin-area.store.ts";
import { createPgAdminAreaStore } from "./admin-area/admin-area.pg.store.ts";
import { createApiKeyStore } from "./auth/api-keys.store.ts";
import { createPgApiKeyStore } from "./auth/api-keys.pg.store.ts";
import { createContactStore } from "./contacts/contacts.store.ts";
import { createPgContactStore } from "./contacts/contacts.pg.store.ts";
import { createCustomerStore } from "./customers/customers.store.ts";
import { createPgCustomerStore } from "./customers/customers.pg.store.ts";
import { createIdempotencyStore } from "./idempotency/idempotency.store.ts";
import { createPgIdempotencyStore } from "./idempotency/idempotency.pg.store.ts";
import { createOnboardingStore } from "./onboardings/onboardings.store.ts";
import { createPgOnboardingStore } from "./onboardings/onboardings.pg.store.ts";
import { createSequences, type NextSequence, type Sequenced } from "./sequences.store.ts";
import { createPgSequences } from "./sequences.pg.store.ts";
import { createWorkspaceStore } from "./workspaces.store.ts";
import { createPgWorkspaceStore } from "./workspaces.pg.store.ts";

/**
 * Every store the API process uses, as services see them (`StoreOf`: plain answers on SQLite,
 * promises on PostgreSQL). The one place the API chooses adapters by engine.
 */
export interface ApiStores {
  nextSequence: (...args: Parameters<NextSequence>) => MaybePromise<Sequenced>;
  workspaces: StoreOf<ReturnType<typeof createWorkspaceStore>>;
  customers: StoreOf<ReturnType<typeof createCustomerStore>>;
  contacts: StoreOf<ReturnType<typeof createContactStore>>;
  onboardings: StoreOf<ReturnType<typeof createOnboardingStore>>;
  outbox: {
    /** Call inside the change's transaction: the row commits, or rolls back, with the change. */
    add<Q extends QueueName, N extends JobName<Q>>(orgId: string | null, queue: Q, name: N, payload: JobPayload<Q, N>, now: number): MaybePromise<void>;
  };
  relayOutbox: StoreOf<ReturnType<typeof createOutboxStore>>;
  activity: StoreOf<ReturnType<typeof createActivityStore>>;
  apiKeys: StoreOf<ReturnType<typeof createApiKeyStore>>;
  idempotency: StoreOf<ReturnType<typeof createIdempotencyStore>>;
  health: StoreOf<ReturnType<typeof createHealthStore>>;
  metrics: StoreOf<ReturnType<typeof createMetricsStore>>;
  adminArea: StoreOf<ReturnType<typeof createAdminAreaStore>>;
}

/** `onOutboxWrite` runs after a change wrote an outbox row (the relay's kick). */
export function createApiStores(database: Database, onOutboxWrite: () => void): ApiStores {
  if (database.engine === "sqlite") {
    const db = database.db;
    return {
      nextSequence: createSequences(db),
      workspaces: createWorkspaceStore(db),
      customers: createCustomerStore(db),
      contacts: createContactStore(db),
      onboardings: createOnboardingStore(db),
      outbox: createOutboxWriter(db, onOutboxWrite),
      relayOutbox: createOutboxStore(db),
      activity: createActivityStore(db),
      apiKeys: createApiKeyStore(db),
      idempotency: createIdempotencyStore(db),
      health: createHealthStore(db),
      metrics: createMetricsStore(db),
      adminArea: createAdminAreaStore(db),
    };
  }
  const db = database.db;
  const health = createPgHealthStore(db);
  return {
    nextSequence: createPgSequences(db),
    workspaces: createPgWorkspaceStore(db),
    customers: createPgCustomerStore(db),
    contacts: createPgContactStore(db),
    onboardings: createPgOnboardingStore(db),
    outbox: createPgOutboxWriter(db, onOutboxWrite),
    relayOutbox: createPgOutboxStore(db),
    activity: createPgActivityStore(db),
    apiKeys: createPgApiKeyStore(db),
    idempotency: createPgIdempotencyStore(db),
    health,
    metrics: health,
    adminArea: createPgAdminAreaStore(db),
  };
}
