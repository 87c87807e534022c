import type { Clock } from "../shared/clock.ts";
import type { Transaction } from "../shared/db/database.ts";
import type { ApiStores } from "./stores.ts";

/**
 * Everything service functions may touch, built once by the composition root. Each service
 * function names the subset it needs, so its dependencies are explicit. Services are flows
 * (shared/db/flow.ts): the same code runs synchronously on SQLite and awaits PostgreSQL.
 */
export interface ServiceDeps {
  transaction: Transaction;
  clock: Clock;
  nextSequence: ApiStores["nextSequence"];
  workspaces: ApiStores["workspaces"];
  customers: ApiStores["customers"];
  contacts: ApiStores["contacts"];
  onboardings: ApiStores["onboardings"];
  outbox: ApiStores["outbox"];
}
