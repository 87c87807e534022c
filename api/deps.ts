import type { Clock } from "../shared/clock.ts";
import type { Transaction } from "../shared/db/database.ts";
import type { OutboundRules } from "../shared/webhooks/outbound-rules.ts";
import type { createOutboxWriter } from "../shared/db/outbox-writer.store.ts";
import type { NextSequence, NextSequenceBlocks } from "./sequences.store.ts";
import type { createWorkspaceStore } from "./workspaces.store.ts";

/**
 * What every resource's services may use besides their own stores, built once by the
 * composition root. A service names its own stores beside these (`CoreDeps & { customers:
 * CustomerStore }`), so its dependencies are explicit, and `api/features.ts` assembles the
 * whole (`ServiceDeps`). Services are flows (shared/db/flow.ts): the same code runs
 * synchronously on SQLite and awaits PostgreSQL.
 */
export interface CoreDeps {
  transaction: Transaction;
  clock: Clock;
  nextSequence: NextSequence;
  /** The same for a batch of records made together (api/http/together.ts). */
  sequenceBlocks: NextSequenceBlocks;
  workspaces: ReturnType<typeof createWorkspaceStore>;
  outbox: ReturnType<typeof createOutboxWriter>;
  /** Where webhooks may go, and the key that seals their secrets. */
  webhookSettings: { rules: OutboundRules; secretKey: string | null };
}
