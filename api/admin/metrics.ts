import type { Clock } from "../../shared/clock.ts";
import { run } from "../../shared/db/flow.ts";
import { Counter, Gauge, Registry } from "prom-client";
import { createRequestMetrics } from "./request-metrics.ts";
import type { ApiStores } from "../stores.ts";
import type { Queues } from "../../shared/jobs/queues.ts";
import type { RateLimiter } from "../limits/rate-limiter.ts";
import type { Relay } from "../outbox/relay.ts";
import { prunedCountKey, RETAINED_TABLES } from "../../shared/retention.ts";

const JOB_STATES = ["waiting", "active", "delayed", "failed", "completed"] as const;

/**
 * Prometheus metrics of one API process: request counts and latency per route, and, read
 * at scrape time, queue depths, the outbox backlog, delivery outcomes and the limiter mode.
 * A registry per app (not the global one) keeps several apps in one process apart.
 */
export function createMetrics(deps: { store: ApiStores["metrics"]; queues: Queues; relay: Relay; limiter: RateLimiter; /** Queue prefix: where the workers count rows pruned. */ prefix: string; clock: Clock }) {
  const registry = new Registry();
  const requests = createRequestMetrics(registry);
  const disconnects = new Counter({
    name: "http_client_disconnects_total",
    help: "Requests whose client went away before the request was whole (not server errors).",
    labelNames: ["method", "route"] as const,
    registers: [registry],
  });
  const batches = new Counter({
    name: "change_batches_total",
    help: "Batches of changes made together in one transaction (api/http/together.ts), by route.",
    labelNames: ["route"] as const,
    registers: [registry],
  });
  const batched = new Counter({
    name: "batched_changes_total",
    help: "Requests handed to a route's batches, by route and how each was made: 'together' (committed in a batch) or 'alone' (it left its batch and ran on its own).",
    labelNames: ["route", "made"] as const,
    registers: [registry],
  });
  const { store } = deps;
  new Gauge({
    name: "queue_jobs",
    help: "BullMQ jobs by queue and state.",
    labelNames: ["queue", "state"] as const,
    registers: [registry],
    async collect() {
      for (const [name, queue] of Object.entries(deps.queues)) {
        try {
          const counts = await queue.getJobCounts(...JOB_STATES);
          for (const state of JOB_STATES) this.set({ queue: name, state }, counts[state] ?? 0);
        } catch {
          // Redis away: the gauges keep their last values; outbox_backlog shows the effect.
        }
      }
    },
  });
  new Gauge({
    name: "outbox_backlog",
    help: "Side effects committed but not yet handed to BullMQ.",
    registers: [registry],
    async collect() {
      this.set(await deps.relay.backlog());
    },
  });
  new Gauge({
    name: "outbox_unfinished",
    help: "Side effects handed to BullMQ whose outcome the worker has not recorded yet.",
    registers: [registry],
    async collect() {
      this.set(await deps.relay.unfinished());
    },
  });
  new Gauge({
    name: "outbox_relay_waiting_for_redis",
    help: "1 while the outbox relay backs off because Redis does not answer.",
    registers: [registry],
    collect() {
      this.set(deps.relay.waitingForRedis() ? 1 : 0);
    },
  });
  new Gauge({
    name: "deliveries",
    help: "Outbound effects by kind and outcome (sending, sent, skipped, failed, uncertain).",
    labelNames: ["kind", "status"] as const,
    registers: [registry],
    async collect() {
      const rows = await run(store.deliveriesByKindAndStatus());
      this.reset();
      for (const row of rows) this.set({ kind: row.kind, status: row.status }, row.n);
    },
  });
  new Gauge({
    name: "webhook_attempts",
    help: "Webhook delivery attempts kept (WEBHOOK_ATTEMPTS_RETENTION), by outcome: delivered (2xx), retrying (another try is due), failed.",
    labelNames: ["outcome"] as const,
    registers: [registry],
    async collect() {
      const rows = await run(store.webhookAttemptsByOutcome());
      this.reset();
      for (const outcome of ["delivered", "retrying", "failed"]) this.set({ outcome }, rows.find((r) => r.outcome === outcome)?.n ?? 0);
    },
  });
  new Gauge({
    name: "webhook_oldest_undelivered_seconds",
    help: "Age of the oldest webhook delivery neither delivered nor given up (0 when none waits).",
    registers: [registry],
    async collect() {
      const oldest = (await run(store.oldestUndeliveredWebhook()))?.at ?? null;
      this.set(oldest === null ? 0 : Math.max(0, (deps.clock.nowMicros() - oldest) / 1e6));
    },
  });
  new Gauge({
    name: "database_bytes",
    help: "What the database takes on disk (SQLite: the main file; PostgreSQL: pg_database_size).",
    registers: [registry],
    async collect() {
      this.set(await run(store.databaseBytes()));
    },
  });
  new Gauge({
    name: "retention_pruned_rows",
    help: "Expired rows pruned by all workers, by table, since Redis last lost its data (a count kept beside the queues).",
    labelNames: ["table"] as const,
    registers: [registry],
    async collect() {
      try {
        const counts = await (await deps.queues.records.client).hgetall(prunedCountKey(deps.prefix));
        for (const table of RETAINED_TABLES) this.set({ table }, Number(counts[table] ?? 0));
      } catch {
        // Redis away: the gauges keep their last values.
      }
    },
  });
  new Gauge({
    name: "rate_limiter_per_process",
    help: "1 while Redis is unreachable and this process limits on its own.",
    registers: [registry],
    collect() {
      this.set(deps.limiter.mode() === "per_process" ? 1 : 0);
    },
  });

  return {
    forRoute: requests.forRoute,
    /** A batch of `route` committed `together` requests; `alone` left it to run on their own. */
    batch(route: string, together: number, alone: number): void {
      if (together > 0) {
        batches.inc({ route });
        batched.inc({ route, made: "together" }, together);
      }
      if (alone > 0) batched.inc({ route, made: "alone" }, alone);
    },
    clientDisconnected(method: string, route: string): void {
      disconnects.inc({ method, route });
    },
    async render(): Promise<Response> {
      return new Response(await registry.metrics(), { headers: { "content-type": registry.contentType } });
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
