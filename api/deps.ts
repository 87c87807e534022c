import type { Clock } from "../shared/clock.ts";
import type { Db } from "../shared/db/client.ts";
import type { ContactStore } from "./contacts/contacts.store.ts";
import type { CustomerStore } from "./customers/customers.store.ts";
import type { OnboardingStore } from "./onboardings/onboardings.store.ts";
import type { WorkspaceStore } from "./workspaces.store.ts";
import type { OutboxWriter } from "../shared/db/outbox-writer.store.ts";
import type { NextSequence } from "./sequences.store.ts";

/**
 * Everything service functions may touch, built once by the composition root. Each service
 * function names the subset it needs, so its dependencies are explicit.
 */
export interface ServiceDeps {
  db: Db;
  clock: Clock;
  nextSequence: NextSequence;
  workspaces: WorkspaceStore;
  customers: CustomerStore;
  contacts: ContactStore;
  onboardings: OnboardingStore;
  outbox: OutboxWriter;
}
