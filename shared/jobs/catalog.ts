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

export const JOBS = {
  records: {
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
  },
} as const satisfies Record<string, Record<string, TSchema>>;

type Catalog = typeof JOBS;
export type QueueName = keyof Catalog;
export type JobName<Q extends QueueName> = keyof Catalog[Q] & string;
/** Payload types, computed once per job so that generic callers stay cheap to check. */
type Payloads = { [Q in QueueName]: { [N in keyof Catalog[Q]]: Catalog[Q][N] extends TSchema ? Static<Catalog[Q][N]> : never } };
export type JobPayload<Q extends QueueName, N extends JobName<Q>> = Payloads[Q][N];
