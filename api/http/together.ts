import type { Transaction } from "../../shared/db/database.ts";
import { run, together, type Flow } from "../../shared/db/flow.ts";
import { isDatabaseBusy } from "../../shared/db/busy.ts";
import { pagesOf } from "../../shared/db/activity.store.ts";
import { DomainError } from "../../shared/errors.ts";
import type { ActivityEntry } from "../../shared/jobs/catalog.ts";
import type { Logger } from "../../shared/logger.ts";
import type { BatchClaim } from "../idempotency/idempotency.store.ts";
import type { ApiStores } from "../stores.ts";

/**
 * Creates made together: the requests of one route that arrive while earlier batches are being
 * written go as one transaction whose statements each carry the whole batch's rows
 * (`Sql.rowSet`), so a batch of n costs about the statements, round trips and commit of one
 * request. On PostgreSQL that is what a create costs most: each statement is a round trip and
 * ~15–20 µs of the client's CPU, and a create of its own is eleven of them
 * (bench/RESULTS.md, "the batched create"). On SQLite the batch is one body of the group commit.
 *
 * Every promise of a request made alone holds for each request of a batch:
 * - its change, its events, their webhook deliveries, its activity entry and its stored
 *   response commit together, or none of them does (one transaction, all or nothing); the
 *   batch's activity entries go as pages, each workspace's one row (`pagesOf`), as a flush's do;
 * - an `Idempotency-Key` is claimed in that transaction, on the key's primary key, as alone;
 * - a request the batch cannot make as asked leaves it before anything commits and runs alone,
 *   on the route's handler, where it gets its own answer: a key claimed by another request
 *   (replayed, 409, or taken over there), a customer that is missing or another workspace's
 *   (404). Its leaving rolls the batch back; the others go again in the next batch.
 * - A batch that fails for any other reason (a failure of this code) is rolled back and each
 *   of its requests runs alone; the database unavailable or busy fails each of them as it
 *   would have failed alone (503).
 */
export interface Together<I, S = unknown> {
  /** Whether a request may go with others (the rest run alone, on the route's handler). */
  accepts(input: I): boolean;
  /**
   * The batch's first round trip, sent with its keys' claims: what its changes read and lock.
   * Answers what `write` needs, and the requests that cannot be made together (by index).
   */
  read(inputs: readonly I[], now: number): Flow<{ alone: readonly number[]; state: S }>;
  /** The batch's writes, sent without waiting: answers each request's response body, its handler's result serialised (once: the route may reuse the text, in its events). */
  write(inputs: readonly I[], state: S, now: number): Flow<string[]>;
}

/** One request handed to a batcher. */
export interface BatchItem<I> {
  input: I;
  /** Its `Idempotency-Key`'s claim, or null. */
  claim: BatchClaim | null;
  /** Its activity entry for a status, written with the change. */
  entry: (status: number) => ActivityEntry;
}

export interface BatcherDeps {
  transaction: Transaction;
  claims: ApiStores["idempotency"];
  activity: ApiStores["activity"];
  nowMicros: () => number;
  logger: Logger;
}

export interface BatcherOptions {
  /** Batches being written at once (1): each holds a connection for its transaction. */
  batchesOut?: number;
  /** Requests in a batch at most. */
  most?: number;
  /**
   * How long the requests that waited for a batch wait, at most, for those it answered to come
   * back before the next batch goes (`GATHER_MS`; see `createBatcher`). 0 sends them at once.
   */
  gatherMs?: number;
  /** Told of each batch: how many requests it committed, and how many left it to run alone (metrics). */
  onBatch?: (together: number, alone: number) => void;
}

/** Some requests must leave the batch: it rolls back, they run alone, the rest go again. */
class Leaving extends Error {
  constructor(readonly alone: ReadonlySet<number>) {
    super("requests that cannot be made together");
  }
}

interface Waiting<I> {
  item: BatchItem<I>;
  /** The response body, or null: run the request alone. */
  resolve(body: string | null): void;
  reject(error: unknown): void;
}

/**
 * How long, at most, the requests that waited for a batch wait for the ones it answered. A client
 * on loopback or in the same network sends its next request within a fraction of that.
 */
export const GATHER_MS = 1;
/**
 * How long after a batch ends its clients are expected back, in `gatherMs`: under load the API
 * answers a batch of 32 and reads their next requests in 1–3 ms (the statement log's gap between
 * two PostgreSQL batches). A request that arrives later goes at once. Waiting from the batch's
 * end instead (1 ms) left before the clients were back, and split them again (PostgreSQL PATCH
 * 0.39–0.40 of the bare server against 0.45–0.46).
 */
const EXPECTED_FOR = 10;

/**
 * The batcher of one route: `submit` answers the request's response body once its batch has
 * committed, or null when the request is to run alone. Requests wait only while `batchesOut`
 * batches are being written; the rest gather (up to `most`) and go when one is done, so under
 * little load a request goes at once, in a batch of its own, and under much load the batches
 * grow instead of the queue. One batch out measured best through the whole service (PostgreSQL
 * creates at 0.41 / 0.49 of the bare server, against 0.36 / 0.44 with two: larger batches
 * spend less of both processes' CPU per create; bench/RESULTS.md).
 *
 * When a batch is done, the next does not leave with whatever happens to be waiting: it waits
 * (at most `gatherMs`) until as many requests wait as were in play when the batch ended, those
 * it answered and those that waited for it. Clients that send their next change once the last
 * is answered (an integration's workers, each one request at a time) are answered together, so
 * they come back together; a batch that left with the few that arrived meanwhile split them in
 * two for good: batches of 31 and 1, or 16 and 16, took turns (counted under `wrk`), each paying
 * a transaction's round trips and commit. Gathered, they went as one batch of 32 after another:
 * PostgreSQL PATCHes 3,444 → 3,952–4,166 a second, creates 3,795–3,834 → 4,540–4,865
 * (bench/RESULTS.md, #26's sixteenth pass). A request waits `gatherMs` at most, and only if it
 * arrives while the clients are expected back (`EXPECTED_FOR`); one that arrives later goes at
 * once, as before.
 */
export function createBatcher<I>(route: Together<I>, status: number, deps: BatcherDeps, options: BatcherOptions = {}) {
  const batchesOut = options.batchesOut ?? 1;
  const most = options.most ?? 64;
  const gatherMs = options.gatherMs ?? GATHER_MS;
  let waiting: Waiting<I>[] = [];
  let out = 0;
  let scheduled = false;
  /** How many requests the next batch waits for (see above); 0 once a batch goes, or the time is up. */
  let expected = 0;
  /** When that expectation lapses: a request that arrives later is not one of those coming back. */
  let expectedUntil = 0;
  let gathering: ReturnType<typeof setTimeout> | null = null;

  function schedule(): void {
    if (scheduled || out >= batchesOut || waiting.length === 0) return;
    if (waiting.length < expected && performance.now() < expectedUntil) {
      gathering ??= setTimeout(() => {
        gathering = null;
        expected = 0;
        schedule();
      }, gatherMs);
      return;
    }
    stopGathering();
    // Gathered for the rest of this turn of the event loop: the requests that arrive in it go together.
    scheduled = true;
    setImmediate(pump);
  }

  function stopGathering(): void {
    if (gathering !== null) clearTimeout(gathering);
    gathering = null;
    expected = 0;
  }

  function pump(): void {
    scheduled = false;
    stopGathering();
    while (out < batchesOut && waiting.length > 0) {
      const batch = waiting.splice(0, most);
      out++;
      void write(batch).then(done, () => done(0));
    }
  }

  function done(answered: number): void {
    out--;
    if (gatherMs > 0 && answered > 0) {
      expected = Math.min(most, Math.max(expected, answered + waiting.length));
      expectedUntil = performance.now() + EXPECTED_FOR * gatherMs;
    }
    schedule();
  }

  /**
   * Writes a batch; answers how many of its requests' clients were answered and may come back
   * at once: not those sent to run alone (they are not answered yet), not those that go again,
   * and not those refused with 503 (their clients wait out the Retry-After).
   */
  async function write(batch: Waiting<I>[]): Promise<number> {
    let bodies: string[];
    try {
      bodies = await run(deps.transaction(() => writeBatch(batch.map((w) => w.item))));
    } catch (error) {
      if (error instanceof Leaving) {
        const again = batch.filter((w, i) => (error.alone.has(i) ? (w.resolve(null), false) : true));
        waiting = again.concat(waiting);
        counted(0, error.alone.size);
        return 0;
      }
      if (isDatabaseBusy(error) || (error instanceof DomainError && error.code === "service_unavailable")) {
        for (const w of batch) w.reject(error);
        return 0;
      }
      for (const w of batch) w.resolve(null);
      deps.logger.error("a batch of changes failed; its requests run alone", { count: batch.length, error: error instanceof Error ? error.message : String(error) });
      counted(0, batch.length);
      return 0;
    }
    // Committed: each request is answered with its body, whatever the counting below does.
    batch.forEach((w, i) => w.resolve(bodies[i]!));
    counted(batch.length, 0);
    return batch.length;
  }

  /** The metrics' count of a batch; a failure to count is not the batch's (its requests are answered already). */
  function counted(together: number, alone: number): void {
    try {
      options.onBatch?.(together, alone);
    } catch {
      // nothing to undo: the counters miss one batch
    }
  }

  function* writeBatch(items: readonly BatchItem<I>[]): Flow<string[]> {
    const now = deps.nowMicros();
    const inputs = items.map((item) => item.input);
    const keyed = items.flatMap((item, i) => (item.claim ? [i] : []));
    // The claims go first on the connection, in key order: a key another transaction holds is waited for before this one takes any other lock.
    const [taken, read] = yield* together(deps.claims.claimMany(keyed.map((i) => items[i]!.claim!), now), route.read(inputs, now));
    const alone = new Set(read.alone);
    taken.forEach((took, j) => took || alone.add(keyed[j]!));
    if (alone.size > 0) throw new Leaving(alone);
    const bodies = yield* route.write(inputs, read.state, now);
    yield* deps.claims.completeMany(keyed.map((i) => ({ apiKeyId: items[i]!.claim!.apiKeyId, key: items[i]!.claim!.key, body: bodies[i]! })), status, now);
    // The batch's entries as pages, a row per workspace, not a row (and three index entries) per
    // request: index entries are half of PostgreSQL's CPU a PATCH, and this took it down 2–9% in
    // runs alternated with rows (bench/RESULTS.md, #26's twenty-eighth pass).
    yield* deps.activity.insertPages(pagesOf(items.map((item) => item.entry(status))));
    return bodies;
  }

  return {
    submit: (item: BatchItem<I>): Promise<string | null> =>
      new Promise((resolve, reject) => {
        waiting.push({ item, resolve, reject });
        schedule();
      }),
  };
}
