import type { Database } from "../shared/db/database.ts";
import { createActivityStore } from "../shared/db/activity.store.ts";
import { createHealthStore } from "../shared/db/health.store.ts";
import { createOutboxStore } from "../shared/db/outbox.store.ts";
import { createOutboxWriter } from "../shared/db/outbox-writer.store.ts";
import { createMetricsStore } from "./admin/metrics.store.ts";
import { createAdminAreaStore } from "./admin-area/admin-area.store.ts";
import { createOnboardingPagesStore } from "./admin-area/onboarding-pages.store.ts";
import { createApiKeyStore } from "./auth/api-keys.store.ts";
import { createFeatureStores } from "./features.ts";
import { createIdempotencyStore } from "./idempotency/idempotency.store.ts";
import { createSequenceBlocks, createSequences } from "./sequences.store.ts";
import { createWorkspaceStore } from "./workspaces.store.ts";

/**
 * Every store the API process uses, built from the statements of `database`:
 * the same code on SQLite and PostgreSQL. `onOutboxWrite` runs after a change that wrote an
 * outbox row has committed (the relay's kick).
 */
export function createApiStores(database: Database, onOutboxWrite: () => void) {
  const { sql } = database;
  return {
    nextSequence: createSequences(sql),
    sequenceBlocks: createSequenceBlocks(sql),
    workspaces: createWorkspaceStore(sql),
    /** Each resource's own stores (`api/features.ts`). */
    features: createFeatureStores(sql),
    outbox: createOutboxWriter(sql, onOutboxWrite),
    relayOutbox: createOutboxStore(database),
    activity: createActivityStore(sql),
    apiKeys: createApiKeyStore(sql, database.transaction),
    idempotency: createIdempotencyStore(sql),
    health: createHealthStore(sql),
    metrics: createMetricsStore(sql),
    adminArea: createAdminAreaStore(sql),
    onboardingPages: createOnboardingPagesStore(sql),
  };
}

export type ApiStores = ReturnType<typeof createApiStores>;
