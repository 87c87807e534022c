import type { Phase } from "../domain.ts";
import { activeSeconds, durationBucket, launchDelaySeconds, monthOf } from "../phase-durations.ts";
import type { Flow } from "./flow.ts";
import { decoder, insertFields, jsonRows, type Sql } from "./sql.ts";

/** A phase change as its record is asked for: the visit it ends, and the target launch date it had then (null: none, or not known). */
export interface PhaseChange {
  /** Unique per change (`<onboarding id>:<at>`), or the job id of a record queued by an older version: a second write is a no-op. */
  source: string;
  orgId: string;
  customerId: string;
  onboardingId: string;
  from: string;
  to: string;
  at: number;
  actor: string;
  phaseEnteredAt: number;
  slaSuspendedSeconds: number;
  targetMicros: number | null;
}

/** One visit of a phase, as the phase change that ended it records it: the change and what is derived from it. */
type TransitionRecord = Omit<PhaseChange, "targetMicros"> & {
  activeSeconds: number;
  firstLaunch: boolean;
  launchDelaySeconds: number | null;
};

/** A recorded visit as the reports read it. */
export interface VisitRow {
  fromPhase: Phase;
  toPhase: Phase;
  at: number;
  phaseEnteredAt: number;
  slaSuspendedSeconds: number;
  activeSeconds: number;
  firstLaunch: boolean;
  launchDelaySeconds: number | null;
}

/** The transitions' columns and the record's fields they hold. */
const TRANSITION_COLUMNS = {
  source: "source",
  org_id: "orgId",
  customer_id: "customerId",
  onboarding_id: "onboardingId",
  from_phase: "from",
  to_phase: "to",
  at: "at",
  actor: "actor",
  phase_entered_at: "phaseEnteredAt",
  sla_suspended_seconds: "slaSuspendedSeconds",
  active_seconds: "activeSeconds",
  first_launch: "firstLaunch",
  launch_delay_seconds: "launchDelaySeconds",
} as const satisfies Record<string, keyof TransitionRecord>;

const VISIT_COLUMNS = `from_phase AS "fromPhase", to_phase AS "toPhase", at, phase_entered_at AS "phaseEnteredAt",
  sla_suspended_seconds AS "slaSuspendedSeconds", active_seconds AS "activeSeconds", first_launch AS "firstLaunch", launch_delay_seconds AS "launchDelaySeconds"`;
const visitDecoder = decoder<VisitRow>({
  at: "number",
  phaseEnteredAt: "number",
  slaSuspendedSeconds: "number",
  activeSeconds: "number",
  firstLaunch: "boolean",
  launchDelaySeconds: "number",
});

/**
 * Phase transitions (kept for good) and the monthly aggregate the workspace report reads. A
 * transition and its aggregate rows are written together, in the transaction of the change
 * that ends the visit: the aggregate never counts a visit twice, nor misses one.
 */
export function createPhaseDurationStore(sql: Sql) {
  // A record already written (same source) is skipped: the answer counts the rows written.
  const insertTransitions = insertFields<TransitionRecord>(sql, "phase_transitions", TRANSITION_COLUMNS, "ON CONFLICT (source) DO NOTHING");
  // A change's own record: its source is new (below), so it is inserted plainly, without the
  // conflict check a record queued by an older version needs (on PostgreSQL a speculative insert:
  // an extra probe of the index and WAL record a row). A duplicate fails the change instead of
  // being skipped while its visit is still added to its month.
  const insertNewTransitions = insertFields<TransitionRecord>(sql, "phase_transitions", TRANSITION_COLUMNS);
  // A change's (or a batch's) visits in one statement, whatever their number, taken in key
  // order so that two transactions lock their common rows in the same order. Fewer statements,
  // not a faster PATCH: a batch's upsert took PostgreSQL about 0.05 ms of its 6–7 ms of writes
  // either way (bench/RESULTS.md, #26's twenty-ninth pass).
  const addVisits = sql.statement(
    `INSERT INTO phase_visit_months (org_id, month, phase, bucket, visits, active_seconds)
     SELECT v."orgId", v."month", v."phase", v."bucket", v."visits", v."activeSeconds"
     FROM ${sql.rowSet("v", { orgId: "text", month: "text", phase: "text", bucket: "integer", visits: "integer", activeSeconds: "real" })}
     WHERE true ORDER BY v."orgId", v."month", v."phase", v."bucket"
     ON CONFLICT (org_id, month, phase, bucket) DO UPDATE SET visits = phase_visit_months.visits + excluded.visits, active_seconds = phase_visit_months.active_seconds + excluded.active_seconds`,
  );
  const addLaunch = sql.statement(
    `INSERT INTO launch_months (org_id, month, launches, on_time, late, delay_seconds) VALUES ($orgId, $month, 1, $onTime, $late, $delaySeconds)
     ON CONFLICT (org_id, month) DO UPDATE SET launches = launch_months.launches + 1, on_time = launch_months.on_time + excluded.on_time,
       late = launch_months.late + excluded.late, delay_seconds = launch_months.delay_seconds + excluded.delay_seconds`,
  );
  const launchedBefore = sql.statement<{ one: number }>(
    `SELECT 1 AS one FROM phase_transitions WHERE onboarding_id = $onboardingId AND to_phase = 'launch' LIMIT 1`,
  );
  const ofOnboarding = sql.statement<VisitRow>(`SELECT ${VISIT_COLUMNS} FROM phase_transitions WHERE onboarding_id = $onboardingId ORDER BY at`, { decode: visitDecoder });
  const inPeriod = sql.statement<VisitRow>(`SELECT ${VISIT_COLUMNS} FROM phase_transitions WHERE org_id = $orgId AND at >= $from AND at < $to`, { decode: visitDecoder });
  const ofCustomer = sql.statement<VisitRow>(
    `SELECT ${VISIT_COLUMNS} FROM phase_transitions WHERE org_id = $orgId AND customer_id = $customerId AND at >= $from AND at < $to`,
    { decode: visitDecoder },
  );
  // A period's partial months: the visits grouped in the database by phase and duration bucket
  // (shared/phase-durations.ts's durationBucket in SQL, as the migration that backfilled the
  // aggregate wrote it), read from the (org_id, at, from_phase, active_seconds) index alone;
  // and the first launches among them, from the launch index.
  const groupedInPeriod = sql.statement<{ phase: Phase; bucket: number; visits: number; activeSeconds: number }>(
    `SELECT from_phase AS phase, CASE WHEN active_seconds < 1 THEN 0 ELSE 1 + CAST(floor(ln(active_seconds) / ln(1.02)) AS INTEGER) END AS bucket,
       COUNT(*) AS visits, sum(active_seconds) AS "activeSeconds"
     FROM phase_transitions WHERE org_id = $orgId AND at >= $from AND at < $to GROUP BY 1, 2`,
    { decode: decoder({ bucket: "number", visits: "number", activeSeconds: "number" }) },
  );
  const launchesInPeriod = sql.statement<{ launchDelaySeconds: number | null }>(
    `SELECT launch_delay_seconds AS "launchDelaySeconds" FROM phase_transitions WHERE org_id = $orgId AND first_launch AND at >= $from AND at < $to`,
    { decode: decoder({ launchDelaySeconds: "number" }) },
  );
  const monthlyVisits = sql.statement<{ phase: Phase; bucket: number; visits: number; activeSeconds: number }>(
    `SELECT phase, bucket, CAST(sum(visits) AS INTEGER) AS visits, sum(active_seconds) AS "activeSeconds" FROM phase_visit_months
     WHERE org_id = $orgId AND month >= $fromMonth AND month < $toMonth GROUP BY phase, bucket`,
    { decode: decoder({ bucket: "number", visits: "number", activeSeconds: "number" }) },
  );
  const monthlyLaunches = sql.statement<{ launches: number; onTime: number; late: number; delaySeconds: number }>(
    `SELECT CAST(coalesce(sum(launches), 0) AS INTEGER) AS launches, CAST(coalesce(sum(on_time), 0) AS INTEGER) AS "onTime",
       CAST(coalesce(sum(late), 0) AS INTEGER) AS late, coalesce(sum(delay_seconds), 0) AS "delaySeconds"
     FROM launch_months WHERE org_id = $orgId AND month >= $fromMonth AND month < $toMonth`,
    { decode: decoder({ launches: "number", onTime: "number", late: "number", delaySeconds: "number" }) },
  );

  /** The change's record: its visit's active seconds and, for the onboarding's first move into `launch`, the delay against its target. */
  function* transitionOf(change: PhaseChange): Flow<TransitionRecord> {
    const { targetMicros, ...rest } = change;
    const firstLaunch = change.to === "launch" && (yield* launchedBefore.get({ onboardingId: change.onboardingId })) === undefined;
    return {
      ...rest,
      activeSeconds: activeSeconds(change.phaseEnteredAt, change.at, change.slaSuspendedSeconds),
      firstLaunch,
      launchDelaySeconds: firstLaunch ? launchDelaySeconds(change.at, targetMicros) : null,
    };
  }

  /**
   * Adds recorded visits to the months they ended in: a row per (workspace, month, phase,
   * duration bucket), the visits of one row summed first (an upsert may not touch a row twice),
   * all in one statement sent without waiting, with the change's writes.
   */
  function* addToMonths(transitions: readonly TransitionRecord[]): Flow<void> {
    const visits = new Map<string, { orgId: string; month: string; phase: string; bucket: number; visits: number; activeSeconds: number }>();
    for (const t of transitions) {
      const month = monthOf(t.at);
      const bucket = durationBucket(t.activeSeconds);
      const key = `${t.orgId}\u0000${month}\u0000${t.from}\u0000${bucket}`;
      const row = visits.get(key);
      if (row) {
        row.visits++;
        row.activeSeconds += t.activeSeconds;
      } else visits.set(key, { orgId: t.orgId, month, phase: t.from, bucket, visits: 1, activeSeconds: t.activeSeconds });
    }
    if (visits.size > 0) yield* addVisits.send({ v: jsonRows([...visits.values()]) });
    for (const t of transitions) {
      if (!t.firstLaunch) continue;
      const late = t.launchDelaySeconds !== null && t.launchDelaySeconds > 0;
      yield* addLaunch.send({ orgId: t.orgId, month: monthOf(t.at), onTime: t.launchDelaySeconds === 0 ? 1 : 0, late: late ? 1 : 0, delaySeconds: late ? t.launchDelaySeconds : 0 });
    }
  }

  /**
   * `recordNew` for any number of changes: each change's record, sent without waiting, and the
   * function that adds them to their months. Each move into `launch` reads the onboarding's
   * earlier transitions before any of these is written: two of one onboarding in one call would
   * both count as its first launch (the batch of PATCHes leaves launches to run alone).
   */
  function* recordManyNew(changes: readonly PhaseChange[]): Flow<() => Flow<void>> {
    const transitions: TransitionRecord[] = [];
    for (const change of changes) transitions.push(yield* transitionOf(change));
    yield* insertNewTransitions.send(transitions);
    return () => addToMonths(transitions);
  }

  return {
    /**
     * Records the visit a phase change ends and adds it to the month it ended in; a record
     * already written (same source) changes nothing. Runs in the caller's transaction. For a
     * record that may have been written before (a job queued by an older version: the worker).
     */
    *record(change: PhaseChange): Flow<void> {
      const t = yield* transitionOf(change);
      if ((yield* insertTransitions([t])) === 0) return;
      yield* addToMonths([t]);
    },
    /**
     * `record` for a change made in this transaction, whose source no record can have yet (the
     * API's `<onboarding id>:<at>`, under the onboarding's row lock, `at` past the row's last
     * change): the record is inserted plainly and sent without waiting (a duplicate fails the
     * transaction), and its month's rows are left to the answered function, which the change calls
     * among its last writes. Those rows are shared by the workspace's changes, and each change
     * holds their lock until it commits: taken last, they are held for the commit alone.
     */
    recordNew: (change: PhaseChange) => recordManyNew([change]),
    /** `recordNew` for the phase changes of a batch made together (api/onboardings/onboarding-updates.together.ts). */
    recordManyNew,
    /** Every visit the onboarding has ended, oldest first: one read of the (onboarding_id, at) index. */
    ofOnboarding: (onboardingId: string) => ofOnboarding.all({ onboardingId }),
    /** Visits of the workspace (or of one customer) that ended in [from, to), one by one: a period's partial months. */
    visits: (orgId: string, customerId: string | null, from: number, to: number) =>
      customerId === null ? inPeriod.all({ orgId, from, to }) : ofCustomer.all({ orgId, customerId, from, to }),
    /** Visits of the workspace that ended in [from, to), grouped by phase and duration bucket: the partial months beside whole ones. */
    groupedVisits: (orgId: string, from: number, to: number) => groupedInPeriod.all({ orgId, from, to }),
    /** The delays of the first launches in [from, to) (null: no target then). */
    launches: (orgId: string, from: number, to: number) => launchesInPeriod.all({ orgId, from, to }),
    /** The aggregate of whole months [fromMonth, toMonth) (`YYYY-MM`): visits by phase and duration bucket. */
    monthlyVisits: (orgId: string, fromMonth: string, toMonth: string) => monthlyVisits.all({ orgId, fromMonth, toMonth }),
    monthlyLaunches: (orgId: string, fromMonth: string, toMonth: string) => monthlyLaunches.get({ orgId, fromMonth, toMonth }),
  };
}

export type PhaseDurationStore = ReturnType<typeof createPhaseDurationStore>;
