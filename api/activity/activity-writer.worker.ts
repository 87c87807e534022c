/**
 * The thread behind `startActivityWriter` (activity-writer.ts): a connection of its own to the
 * API's SQLite file, writing each batch it is sent in one transaction (pages of activity
 * entries through the activity store, a slice of keys' usage through the key store), and
 * answering the batch's id with nothing (written) or the database's refusal (its code and
 * message: busy past the wait below, or full).
 *
 * Waiting for another connection's write lock blocks this thread only, so it waits the way the
 * worker process does (SQLite's own busy handler), not with the event loop's timers. Its
 * commits never checkpoint: the API's checkpoint thread (or the API connection's own commits,
 * without it) keeps the WAL bounded, and two checkpointers only keep each other from finishing.
 */
import { openDatabase } from "../../shared/db/client.ts";
import { sqliteDatabase } from "../../shared/db/database.ts";
import { createActivityStore, type ActivityPage } from "../../shared/db/activity.store.ts";
import { run } from "../../shared/db/flow.ts";
import { createApiKeyStore, type KeyUsageDelta } from "../auth/api-keys.store.ts";

declare const self: Worker;

export interface WriterStart {
  path: string;
  busyTimeoutMs: number;
}
/** A batch: its id and its pages (each a few fields and one JSON text: cheap to hand across). */
export interface WriterBatch {
  id: number;
  pages: readonly ActivityPage[];
}
/** A slice of keys' usage to add (`[keyId, delta][]` as JSON text), as `KeyUsage.sweep` gathers it. */
export interface WriterUsage {
  id: number;
  usage: string;
}
export type WriterAnswer = { id: number; refused?: { code: string | undefined; message: string } } | "started" | "stopped";

let write: ((pages: readonly ActivityPage[]) => void) | undefined;
let addUsage: ((batch: [string, KeyUsageDelta][]) => void) | undefined;
let close: (() => void) | undefined;

self.onmessage = (event: MessageEvent<WriterStart | WriterBatch | WriterUsage | "stop">) => {
  const message = event.data;
  if (message === "stop") {
    close?.();
    self.postMessage("stopped" satisfies WriterAnswer);
    return;
  }
  if ("path" in message) return start(message);
  try {
    if ("usage" in message) addUsage!(JSON.parse(message.usage) as [string, KeyUsageDelta][]);
    else write!(message.pages);
    self.postMessage({ id: message.id } satisfies WriterAnswer);
  } catch (error) {
    const { code, message: text } = error as { code?: unknown; message?: unknown };
    self.postMessage({ id: message.id, refused: { code: typeof code === "string" ? code : undefined, message: String(text) } } satisfies WriterAnswer);
  }
};

function start({ path, busyTimeoutMs }: WriterStart): void {
  const database = sqliteDatabase(openDatabase(path, { busyTimeoutMs, commitsCheckpoint: false }));
  const store = createActivityStore(database.sql);
  const keys = createApiKeyStore(database.sql, database.transaction);
  write = (pages) => run(database.transaction(() => store.insertPages(pages)));
  addUsage = (batch) => run(keys.addUsage(batch));
  close = () => database.close();
  self.postMessage("started" satisfies WriterAnswer);
}
