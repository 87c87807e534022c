import type { Redis } from "ioredis";
import { hostname } from "node:os";
import { resolve } from "node:path";
import type { Clock } from "../clock.ts";
import { redactPassword, type Config, type DatabaseConfig } from "../config.ts";
import type { Database } from "../db/database.ts";
import { retryWhileBusy } from "../db/busy.ts";
import { run } from "../db/flow.ts";
import { describeDatabase } from "../db/open.ts";
import { installationId } from "../installation.store.ts";
import type { Logger } from "../logger.ts";

/**
 * A Redis may hold the queues of more than one installation, each under its own QUEUE_PREFIX.
 * Two installations under one prefix would take each other's jobs (a launch DM sent with the
 * wrong database, reminders scanned twice) and share rate-limit counters, and nothing would say
 * so. So the prefix carries a marker, `<prefix>:installation`, naming the installation (the id
 * kept in its database, shared/installation.store.ts) whose processes use it: the first process
 * to start writes it, every process of the same installation finds its own id there, and a
 * process of another installation refuses to start unless told to take the prefix over.
 */
export const markerKey = (prefix: string) => `${prefix}:installation`;

export interface Installation {
  /** `ins_…`, from the database. */
  id: string;
  /** What a message may show of its database (no password). */
  database: string;
}

/** The database as the marker names it: a SQLite file with its host (two machines' ./data differ), or PostgreSQL's host and name. */
export const databaseLabel = (database: DatabaseConfig) =>
  database.engine === "sqlite" ? `${database.path === ":memory:" ? ":memory:" : resolve(database.path)} on ${hostname()}` : describeDatabase(database);

interface Marker {
  installation_id: string;
  database: string;
  marked_at: string;
}

/** The prefix's marker names another installation: the process must not start on it. */
export class QueuePrefixTaken extends Error {
  override name = "QueuePrefixTaken";
}

export type ClaimOutcome =
  /** The prefix had no marker (new, or Redis lost its data): it is this installation's now. */
  | { outcome: "marked" }
  /** The marker already named this installation: another of its processes, or an earlier start. */
  | { outcome: "ours" }
  /** QUEUE_PREFIX_TAKEOVER: the marker named another installation and now names this one. */
  | { outcome: "taken_over"; previous: Marker };

function parse(raw: string | null): Marker | null {
  if (raw === null) return null;
  try {
    const marker = JSON.parse(raw) as Marker;
    return typeof marker.installation_id === "string" ? marker : { installation_id: raw, database: "unknown", marked_at: "unknown" };
  } catch {
    return { installation_id: raw, database: "unknown", marked_at: "unknown" };
  }
}

/** Marks `prefix` as this installation's, or finds that it is; throws QueuePrefixTaken when another's marker is there. */
export async function claimQueuePrefix(
  redis: Redis,
  options: { prefix: string; redisUrl: string; installation: Installation; takeover: boolean },
): Promise<ClaimOutcome> {
  const { prefix, installation } = options;
  const key = markerKey(prefix);
  const mine = JSON.stringify({ installation_id: installation.id, database: installation.database, marked_at: new Date().toISOString() } satisfies Marker);
  // SET NX, then read: a marker deleted in between (FLUSHALL) is simply set again.
  for (let round = 0; round < 3; round++) {
    if ((await redis.set(key, mine, "NX")) === "OK") return { outcome: "marked" };
    const current = parse(await redis.get(key));
    if (current === null) continue;
    if (current.installation_id === installation.id) return { outcome: "ours" };
    if (!options.takeover) {
      throw new QueuePrefixTaken(
        `The queue prefix '${prefix}' in the Redis at ${redactPassword(options.redisUrl)} belongs to another installation ` +
          `(${current.installation_id}, database ${current.database}, marked ${current.marked_at}); this one is ${installation.id} ` +
          `(database ${installation.database}). Two installations under one prefix would run each other's jobs. ` +
          `Set QUEUE_PREFIX to a prefix of this installation's own, or, if that installation is gone for good, start once with QUEUE_PREFIX_TAKEOVER=1.`,
      );
    }
    await redis.set(key, mine);
    return { outcome: "taken_over", previous: current };
  }
  throw new Error(`the marker ${key} kept disappearing while it was being set`);
}

/** How often a running process checks the marker again (a FLUSHALL loses it without a reconnection). */
export const RECHECK_MS = 60_000;

/**
 * Claims the prefix whenever the connection becomes ready (at start, and after every
 * reconnection: a Redis restarted without its data has lost the marker too), and every
 * `recheckMs` while it is (emptied by hand, or taken over by another installation, which stops
 * this process rather than have two installations run each other's jobs). Resolves once the
 * first claim is made, or after `waitMs` without a ready connection (the API serves while Redis
 * is away; the claim is made when it answers); `waitMs: null` waits as long as it takes (the
 * worker, which has nothing to do without Redis). A claim refused at any time calls `onTaken`.
 */
export function guardQueuePrefix(
  redis: Redis,
  options: {
    prefix: string;
    redisUrl: string;
    installation: Installation;
    takeover: boolean;
    logger: Logger;
    waitMs: number | null;
    recheckMs?: number;
    onTaken: (error: QueuePrefixTaken) => void;
  },
): Promise<void> {
  const { logger, prefix, installation } = options;
  let first = true;
  // QUEUE_PREFIX_TAKEOVER takes the prefix over once, at start: should another installation take
  // it back later, this process stops instead of taking it again (two would fight for it).
  let takeover = options.takeover;
  return new Promise<void>((resolve) => {
    const claim = async () => {
      try {
        const claimed = await claimQueuePrefix(redis, { ...options, takeover });
        takeover = false;
        const fields = { queue_prefix: prefix, installation_id: installation.id, marker: markerKey(prefix) };
        if (claimed.outcome === "taken_over") {
          logger.warn("queue prefix taken over from another installation (QUEUE_PREFIX_TAKEOVER)", { ...fields, previous_installation_id: claimed.previous.installation_id, previous_database: claimed.previous.database });
        } else if (first || claimed.outcome === "marked") {
          logger.info(claimed.outcome === "marked" ? "queue prefix marked as this installation's" : "queue prefix is this installation's", fields);
        }
      } catch (error) {
        if (error instanceof QueuePrefixTaken) return options.onTaken(error);
        // Redis went away between ready and the claim: the next ready claims again.
        logger.warn("could not check the queue prefix's installation marker; checking again when Redis answers", { queue_prefix: prefix, error: (error as Error).message });
      } finally {
        first = false;
        resolve();
      }
    };
    redis.on("ready", () => void claim());
    if (redis.status === "ready") void claim();
    const recheck = setInterval(() => {
      if (redis.status === "ready") void claim();
    }, options.recheckMs ?? RECHECK_MS);
    recheck.unref();
    if (options.waitMs === null) return;
    let waited = false;
    const goOn = () => {
      if (!first || waited) return;
      waited = true;
      logger.warn("Redis does not answer yet: the queue prefix's installation marker is checked when it does", { queue_prefix: prefix, installation_id: installation.id });
      resolve();
    };
    // A refused connection will not be ready within the wait either: go on at once.
    redis.once("error", goOn);
    setTimeout(goOn, options.waitMs).unref();
  });
}

/**
 * What the API and the worker do at start: find this installation (its id, kept in its
 * database), guard the queue prefix for it (`guardQueuePrefix`), and answer it for their
 * log lines. A prefix another installation holds is logged and handed to `stop` with exit
 * code 78 (EX_CONFIG): the process exits at once, or drains first once it serves.
 */
export async function guardInstallationPrefix(
  redis: Redis,
  options: { database: Database; clock: Clock; config: Pick<Config, "database" | "queuePrefix" | "queuePrefixTakeover" | "redisUrl">; logger: Logger; waitMs: number | null; stop: (exitCode: number) => void },
): Promise<Installation> {
  const { config, logger } = options;
  // The API's SQLite connection does not wait for the write lock (busy timeout 0): the worker,
  // started beside it on the same file, may hold it at this moment (its own first row, its
  // start-up pruning). Waited out with timers, as a request's write is.
  const id = await retryWhileBusy(() => run(installationId(options.database, options.clock)), { timeoutMs: 10_000 });
  const installation = { id, database: databaseLabel(config.database) };
  await guardQueuePrefix(redis, {
    prefix: config.queuePrefix,
    redisUrl: config.redisUrl,
    installation,
    takeover: config.queuePrefixTakeover,
    logger,
    waitMs: options.waitMs,
    onTaken: (error) => {
      logger.error("queue prefix belongs to another installation: stopping", { queue_prefix: config.queuePrefix, installation_id: installation.id, reason: error.message });
      console.error(`Configuration error: ${error.message}`);
      options.stop(78);
    },
  });
  return installation;
}
