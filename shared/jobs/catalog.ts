import { Type, type Static, type TSchema } from "@sinclair/typebox";
import { PHASES } from "../domain.ts";

/**
 * Every job the service queues: queue → job name → payload schema. The producer (the outbox
 * writer, in the API's transactions) and the worker's handler map are both typed from this
 * object, and the worker re-validates each payload. Payloads carry ids, never secrets.
 */
const phase = Type.Union(PHASES.map((p) => Type.Literal(p)));
const when = Type.Integer({ description: "microseconds since the epoch" });

const phaseChange = {
  org_id: Type.String(),
  customer_id: Type.String(),
  onboarding_id: Type.String(),
  from: phase,
  to: phase,
  at: when,
  actor: Type.String(),
};

const activityEntry = Type.Object({
  request_id: Type.String(),
  org_id: Type.String(),
  key_id: Type.String(),
  actor: Type.String(),
  method: Type.String(),
  route: Type.String(),
  status: Type.Integer(),
  address: Type.Union([Type.String(), Type.Null()]),
  duration_ms: Type.Number(),
  at: when,
  /** Calls the entry stands for (refusals of one key within one second); 1 when absent. */
  repeat_count: Type.Optional(Type.Integer({ minimum: 1 })),
});

const reminder = {
  org_id: Type.String(),
  onboarding_id: Type.String(),
  customer_id: Type.String(),
  /** Which period of waiting this reminder is for (1 = the first `reminder_frequency_days`). */
  period: Type.Integer({ minimum: 1 }),
  at: when,
};

export const JOBS = {
  records: {
    /** Activity entries of many API calls, batched by the API process. */
    "activity.batch": Type.Object({ entries: Type.Array(activityEntry, { maxItems: 1000 }) }),
    /** Finds onboardings due a reminder and queues them (run by a job scheduler). */
    "reminders.scan": Type.Object({}),
    /** Deletes expired rows of every table that grows with traffic (shared/retention.ts). */
    "retention.prune": Type.Object({}),
    "timeline.phase_changed": Type.Object(phaseChange),
    "phase_transition.record": Type.Object({
      ...phaseChange,
      /** When the phase being left began: with `at`, its duration. */
      phase_entered_at: when,
      /** Seconds of that phase during which the SLA clock was suspended. */
      sla_suspended_seconds: Type.Number({ minimum: 0 }),
    }),
  },
  outbound: {
    "launch.slack_dm": Type.Object({
      org_id: Type.String(),
      onboarding_id: Type.String(),
      customer_id: Type.String(),
      csm_id: Type.Union([Type.String(), Type.Null()]),
      actor: Type.String(),
      at: when,
    }),
    "launch.calendar_entry": Type.Object({
      org_id: Type.String(),
      onboarding_id: Type.String(),
      customer_id: Type.String(),
      actor: Type.String(),
      at: when,
    }),
    "launch.recap_email": Type.Object({
      org_id: Type.String(),
      onboarding_id: Type.String(),
      customer_id: Type.String(),
      actor: Type.String(),
      at: when,
    }),
    "reminder.email": Type.Object(reminder),
    "reminder.slack": Type.Object(reminder),
  },
  /** A queue of its own: a slow or failing receiver never delays launch DMs or reminders. */
  webhooks: {
    /** One event to one endpoint (the event and the endpoint are read when it runs). */
    "webhook.deliver": Type.Object({ org_id: Type.String(), endpoint_id: Type.String(), event_id: Type.String() }),
    /** A `ping` event, asked for through the API; it is in no feed, so the job carries its id and time. */
    "webhook.ping": Type.Object({ org_id: Type.String(), endpoint_id: Type.String(), event_id: Type.String(), at: when }),
  },
} as const satisfies Record<string, Record<string, TSchema>>;

type Catalog = typeof JOBS;
export type QueueName = keyof Catalog;
export type JobName<Q extends QueueName> = keyof Catalog[Q] & string;
/** Payload types, computed once per job so that generic callers stay cheap to check. */
type Payloads = { [Q in QueueName]: { [N in keyof Catalog[Q]]: Catalog[Q][N] extends TSchema ? Static<Catalog[Q][N]> : never } };
export type JobPayload<Q extends QueueName, N extends JobName<Q>> = Payloads[Q][N];

export type ActivityEntry = Static<typeof activityEntry>;

/**
 * Jobs whose payload stays in their outbox row: the job in Redis carries no data, its id
 * (`outbox-<row id>`) says which row holds the payload, and the worker reads it from the
 * database. An activity batch is up to 500 entries (~140 KB). Carried in the job, every entry
 * was parsed and serialised again in the API process, sent to Redis and held in its memory,
 * then parsed again by the worker; the database had it all along. (The relay still reads the
 * row's text, about 0.1 µs an entry, and does not parse it.)
 * A job of these names that does carry its payload (queued by an earlier version) runs with it.
 */
const PAYLOAD_IN_OUTBOX: { readonly [Q in QueueName]: ReadonlySet<string> } = {
  records: new Set<JobName<"records">>(["activity.batch"]),
  outbound: new Set<JobName<"outbound">>(),
  webhooks: new Set<JobName<"webhooks">>(),
};

export const payloadInOutbox = (queue: QueueName, name: string): boolean => PAYLOAD_IN_OUTBOX[queue].has(name);
