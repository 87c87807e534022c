import { onboardings, type OnboardingRow } from "../../shared/db/schema.ts";
import type { OnboardingState, Phase } from "../../shared/domain.ts";
import { decoder, rowOf, type Sql } from "../../shared/db/sql.ts";

/**
 * The reads of the admin area's onboarding pages (overview, list, one onboarding). Each takes
 * the signed-in administrator's workspace and filters on it in the statement; each is served
 * by an index of its own (see the schema), so a page costs the same for a workspace of ten
 * onboardings or of a hundred thousand.
 */

/** An onboarding with its customer's name, as the pages list it. */
export type OnboardingListRow = OnboardingRow & { customerName: string };

/** A first move into `launch`, as the overview lists it. */
export interface LaunchView {
  at: number;
  launchDelaySeconds: number | null;
  /** The onboarding's. */
  id: string;
  displayId: number | null;
  customerName: string | null;
  csmId: string | null;
  deleted: boolean;
}

/** One entry of an onboarding's timeline, before the page words it. */
export interface PhaseChangeView {
  at: number;
  actor: string;
  fromPhase: Phase;
  toPhase: Phase;
  activeSeconds: number;
  slaSuspendedSeconds: number;
}

export interface OnboardingEventView {
  position: number;
  type: string;
  actorType: string;
  actorName: string;
  data: string;
  createdAt: number;
}

export interface ListFilter {
  phase: Phase | null;
  state: OnboardingState | null;
  /** A person id, or `none` (no CSM) or `unknown` (an id naming no user of the workspace). */
  csm: { id: string } | "none" | "unknown" | null;
  customerId: string | null;
}

/** Onboardings the overdue list counts: not launched, with a target that has passed. */
const NOT_LAUNCHED = `o.deleted_at IS NULL AND o.phase NOT IN ('launch', 'completed')`;
/** The longest timeline a page shows: an onboarding's state changes are a handful a week. */
export const TIMELINE_EVENTS_MAX = 500;

export function createOnboardingPagesStore(sql: Sql) {
  const { columns, decode } = rowOf(onboardings, "o");
  const listDecode = decoder<OnboardingListRow>({ ...decode.kinds, customerName: "text" });
  const withCustomer = `SELECT ${columns}, c.name AS "customerName" FROM onboardings o JOIN customers c ON c.id = o.customer_id`;
  const count = decoder<{ n: number }>({ n: "number" });

  // The pipeline: served by onboardings_phase_state_list_idx, read from the index alone.
  const pipeline = sql.statement<{ phase: Phase; state: OnboardingState; n: number }>(
    `SELECT phase, state, COUNT(*) AS n FROM onboardings WHERE org_id = $orgId AND deleted_at IS NULL GROUP BY phase, state`,
    { decode: decoder({ n: "number" }) },
  );
  // Served by onboardings_overdue_idx.
  const overdue = sql.statement<OnboardingListRow>(
    `${withCustomer} WHERE o.org_id = $orgId AND ${NOT_LAUNCHED} AND o.target_launch_at < $now ORDER BY o.target_launch_at LIMIT $limit`,
    { decode: listDecode },
  );
  const overdueCount = sql.statement<{ n: number }>(
    `SELECT COUNT(*) AS n FROM onboardings o WHERE o.org_id = $orgId AND ${NOT_LAUNCHED} AND o.target_launch_at < $now`,
    { decode: count },
  );
  // Served by onboardings_org_waiting_idx: the longest waits first.
  const waiting = sql.statement<OnboardingListRow>(
    `${withCustomer} WHERE o.org_id = $orgId AND o.waiting_on_customer AND o.deleted_at IS NULL ORDER BY o.waiting_on_customer_since LIMIT $limit`,
    { decode: listDecode },
  );
  const waitingCount = sql.statement<{ n: number }>(
    `SELECT COUNT(*) AS n FROM onboardings o WHERE o.org_id = $orgId AND o.waiting_on_customer AND o.deleted_at IS NULL`,
    { decode: count },
  );
  // Served by phase_transitions_launch_idx. A deleted onboarding's launch still counts (as in
  // the SLA report); the page says it was deleted.
  const launches = sql.statement<LaunchView>(
    `SELECT t.at, t.launch_delay_seconds AS "launchDelaySeconds", t.onboarding_id AS id, o.display_id AS "displayId",
            c.name AS "customerName", o.csm_id AS "csmId", o.deleted_at IS NOT NULL AS deleted
     FROM phase_transitions t
     LEFT JOIN onboardings o ON o.id = t.onboarding_id
     LEFT JOIN customers c ON c.id = o.customer_id
     WHERE t.org_id = $orgId AND t.first_launch AND t.at >= $from AND t.at < $to ORDER BY t.at DESC, t.id DESC LIMIT $limit`,
    { decode: decoder({ at: "number", launchDelaySeconds: "number", displayId: "number", deleted: "boolean" }) },
  );
  // The list: one statement per combination of filters, built when first asked for; each is
  // served by the index of its most selective filter (customer, CSM, phase and state); "an id
  // that is no user" walks the workspace's list, checking each CSM against the users' key.
  const lists = new Map<string, ReturnType<typeof sql.statement<OnboardingListRow>>>();
  const csmCondition = {
    id: "o.csm_id = $csm",
    none: "o.csm_id IS NULL",
    unknown: "o.csm_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM users u WHERE u.org_id = o.org_id AND u.id = o.csm_id)",
  } as const;
  function listStatement(filter: ListFilter) {
    const csm = filter.csm === null ? null : typeof filter.csm === "string" ? filter.csm : "id";
    const key = `${filter.phase !== null}:${filter.state !== null}:${csm}:${filter.customerId !== null}`;
    let statement = lists.get(key);
    if (!statement) {
      const where = ["o.org_id = $orgId", "o.deleted_at IS NULL", "o.created_at < $before"];
      if (filter.phase !== null) where.push("o.phase = $phase");
      if (filter.state !== null) where.push("o.state = $state");
      if (csm !== null) where.push(csmCondition[csm]);
      if (filter.customerId !== null) where.push("o.customer_id = $customerId");
      statement = sql.statement<OnboardingListRow>(`${withCustomer} WHERE ${where.join(" AND ")} ORDER BY o.created_at DESC LIMIT $limit`, { decode: listDecode });
      lists.set(key, statement);
    }
    return statement;
  }

  const one = sql.statement<OnboardingListRow>(`${withCustomer} WHERE o.org_id = $orgId AND o.id = $id AND o.deleted_at IS NULL`, { decode: listDecode });
  const oneByNumber = sql.statement<OnboardingListRow>(`${withCustomer} WHERE o.org_id = $orgId AND o.display_id = $displayId AND o.deleted_at IS NULL`, { decode: listDecode });
  // Phase changes are kept for good (the SLA's source): read by phase_transitions_onboarding_idx.
  const phaseChanges = sql.statement<PhaseChangeView>(
    `SELECT at, actor, from_phase AS "fromPhase", to_phase AS "toPhase", active_seconds AS "activeSeconds", sla_suspended_seconds AS "slaSuspendedSeconds"
     FROM phase_transitions WHERE onboarding_id = $id AND org_id = $orgId ORDER BY at`,
    { decode: decoder({ at: "number", activeSeconds: "number", slaSuspendedSeconds: "number" }) },
  );
  // The rest of the timeline is the change feed's (events_object_idx), kept EVENTS_RETENTION.
  const events = sql.statement<OnboardingEventView>(
    `SELECT position, type, actor_type AS "actorType", actor_name AS "actorName", data, created_at AS "createdAt"
     FROM events WHERE org_id = $orgId AND object_id = $id AND type IN ('onboarding.created', 'onboarding.updated', 'onboarding.state_changed')
     ORDER BY position DESC LIMIT $limit`,
    { decode: decoder({ position: "number", createdAt: "number" }) },
  );

  return {
    pipeline: (orgId: string) => pipeline.all({ orgId }),
    overdue: (orgId: string, now: number, limit: number) => overdue.all({ orgId, now, limit }),
    overdueCount: (orgId: string, now: number) => overdueCount.get({ orgId, now }),
    waiting: (orgId: string, limit: number) => waiting.all({ orgId, limit }),
    waitingCount: (orgId: string) => waitingCount.get({ orgId }),
    /** First launches in [from, to), newest first. */
    launches: (orgId: string, from: number, to: number, limit: number) => launches.all({ orgId, from, to, limit }),
    /** A page of the list, newest first, created before `before`. */
    list(orgId: string, filter: ListFilter, before: number, limit: number) {
      const params: Record<string, string | number> = { orgId, before, limit };
      if (filter.phase !== null) params.phase = filter.phase;
      if (filter.state !== null) params.state = filter.state;
      if (filter.csm !== null && typeof filter.csm === "object") params.csm = filter.csm.id;
      if (filter.customerId !== null) params.customerId = filter.customerId;
      return listStatement(filter).all(params);
    },
    one: (orgId: string, id: string) => one.get({ orgId, id }),
    oneByNumber: (orgId: string, displayId: number) => oneByNumber.get({ orgId, displayId }),
    phaseChanges: (orgId: string, id: string) => phaseChanges.all({ orgId, id }),
    /** The onboarding's most recent events of creation and change, newest first. */
    events: (orgId: string, id: string) => events.all({ orgId, id, limit: TIMELINE_EVENTS_MAX }),
  };
}

export type OnboardingPagesStore = ReturnType<typeof createOnboardingPagesStore>;
