import type { Database } from "../shared/db/database.ts";
import { createOutboxStore } from "../shared/db/outbox.store.ts";
import { createOutboxWriter } from "../shared/db/outbox-writer.store.ts";
import { createDeliveryStore } from "./deliveries.store.ts";
import { createLookups } from "./lookups.store.ts";
import { createOutboundStore } from "./outbound.store.ts";
import { createRecordsStore } from "./records.store.ts";

/** Every store the worker process uses, built from the database's statements: the same code on both engines. */
export function createWorkerStores(database: Database) {
  const { sql } = database;
  const outbox = createOutboxStore(database);
  return {
    records: createRecordsStore(sql, database.transaction),
    deliveries: createDeliveryStore(sql),
    lookups: createLookups(sql),
    outbound: createOutboundStore(sql),
    outbox: {
      /** Call inside the change's transaction (the reminder scan's): the row commits, or rolls back, with it. */
      add: createOutboxWriter(sql).add,
      /** Records that these rows' effects reached their outcome (the relay's reconciler then leaves them alone). */
      markCompleted: outbox.markCompleted,
      /** The payload of a job that carries none (`payloadInOutbox`), read from its row. */
      payload: outbox.payload,
    },
  };
}

export type WorkerStores = ReturnType<typeof createWorkerStores>;
export type WorkerLookups = WorkerStores["lookups"];
