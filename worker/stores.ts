import type { Database } from "../shared/db/database.ts";
import type { MaybePromise, StoreOf } from "../shared/db/flow.ts";
import type { JobName, JobPayload, QueueName } from "../shared/jobs/catalog.ts";
import { createPgOutboxWriter } from "../shared/db/activity-outbox.pg.store.ts";
import { createOutboxStore } from "../shared/db/outbox.store.ts";
import { createPgOutboxStore } from "../shared/db/outbox.pg.store.ts";
import { createOutboxWriter } from "../shared/db/outbox-writer.store.ts";
import { createDeliveryStore } from "./deliveries.store.ts";
import { createLookups } from "./lookups.store.ts";
import { createOutboundStore } from "./outbound.store.ts";
import { createPgOutboundStore } from "./outbound.pg.store.ts";
import { createRecordsStore } from "./records.store.ts";
import { createPgDeliveryStore, createPgLookups, createPgRecordsStore } from "./worker.pg.store.ts";

/**
 * Every store the worker process uses, as its handlers see them (`StoreOf`: plain answers on
 * SQLite, promises on PostgreSQL). The one place the worker chooses adapters by engine.
 */
export interface WorkerStores {
  records: StoreOf<ReturnType<typeof createRecordsStore>>;
  deliveries: StoreOf<ReturnType<typeof createDeliveryStore>>;
  lookups: StoreOf<ReturnType<typeof createLookups>>;
  outbound: StoreOf<ReturnType<typeof createOutboundStore>>;
  outbox: {
    /** Call inside the change's transaction (the reminder scan's): the row commits, or rolls back, with it. */
    add<Q extends QueueName, N extends JobName<Q>>(orgId: string | null, queue: Q, name: N, payload: JobPayload<Q, N>, now: number): MaybePromise<void>;
    /** Records that these rows' effects reached their outcome (the relay's reconciler then leaves them alone). */
    markCompleted: StoreOf<ReturnType<typeof createOutboxStore>>["markCompleted"];
    /** The payload of a job that carries none (`payloadInOutbox`), read from its row. */
    payload: StoreOf<ReturnType<typeof createOutboxStore>>["payload"];
  };
}

export type WorkerLookups = WorkerStores["lookups"];

export function createWorkerStores(database: Database): WorkerStores {
  if (database.engine === "sqlite") {
    const db = database.db;
    const writer = createOutboxWriter(db);
    const outbox = createOutboxStore(db);
    return {
      records: createRecordsStore(db),
      deliveries: createDeliveryStore(db),
      lookups: createLookups(db),
      outbound: createOutboundStore(db),
      outbox: { add: writer.add, markCompleted: outbox.markCompleted, payload: outbox.payload },
    };
  }
  const db = database.db;
  const writer = createPgOutboxWriter(db);
  const outbox = createPgOutboxStore(db);
  return {
    records: createPgRecordsStore(db),
    deliveries: createPgDeliveryStore(db),
    lookups: createPgLookups(db),
    outbound: createPgOutboundStore(db),
    outbox: { add: writer.add, markCompleted: outbox.markCompleted, payload: outbox.payload },
  };
}
