import { formatMicros, formatMicrosOrNull, parseDateTimeMicros, type Clock } from "../../shared/clock.ts";
import type { Flow } from "../../shared/db/flow.ts";
import type { PhaseDurationStore, VisitRow } from "../../shared/db/phase-durations.store.ts";
import { PHASES, type Phase } from "../../shared/domain.ts";
import { DomainError } from "../../shared/errors.ts";
import { currentVisit, durationBucket, monthOf, monthStart, nextMonthStart, summarize, type DurationGroup } from "../../shared/phase-durations.ts";
import type { Actor } from "../auth/actor.ts";
import { findCustomer } from "../customers/customers.service.ts";
import type { CustomerStore } from "../customers/customers.store.ts";
import { findOnboarding } from "../onboardings/onboardings.service.ts";
import type { OnboardingStore } from "../onboardings/onboardings.store.ts";
import type { PhaseDurationReportQuery, PhaseDurationReportResource, PhaseDurationsResource } from "./phase-durations.schema.ts";

export interface PhaseDurationDeps {
  clock: Clock;
  onboardings: OnboardingStore;
  customers: CustomerStore;
  phaseDurations: PhaseDurationStore;
}

interface Tally {
  visits: number;
  active: number;
  suspended: number;
  firstEntered: number;
  lastExited: number | null;
}

/**
 * One onboarding's time per phase: its ended visits from the transition records (one read of
 * the `(onboarding_id, at)` index), and the current visit from the onboarding itself, counted
 * up to now with the clock suspended while it waits on the customer.
 */
export function* phaseDurations(deps: Pick<PhaseDurationDeps, "clock" | "onboardings" | "phaseDurations">, actor: Pick<Actor, "orgId">, ref: string): Flow<PhaseDurationsResource> {
  const onboarding = yield* findOnboarding(deps, actor, ref);
  const visits = yield* deps.phaseDurations.ofOnboarding(onboarding.id);
  const now = Math.max(deps.clock.nowMicros(), onboarding.phaseEnteredAt);

  const tallies = new Map<Phase, Tally>();
  const add = (phase: Phase, enteredAt: number, exitedAt: number | null, active: number, suspended: number) => {
    const t = tallies.get(phase) ?? { visits: 0, active: 0, suspended: 0, firstEntered: enteredAt, lastExited: null };
    t.visits += 1;
    t.active += active;
    t.suspended += suspended;
    t.firstEntered = Math.min(t.firstEntered, enteredAt);
    if (exitedAt !== null) t.lastExited = Math.max(t.lastExited ?? exitedAt, exitedAt);
    tallies.set(phase, t);
  };
  for (const v of visits) add(v.fromPhase, v.phaseEnteredAt, v.at, v.activeSeconds, v.slaSuspendedSeconds);

  const current = currentVisit(onboarding, now);
  add(onboarding.phase, onboarding.phaseEnteredAt, null, current.active, current.suspended);

  const phases = PHASES.filter((p) => tallies.has(p)).map((phase) => {
    const t = tallies.get(phase)!;
    return {
      phase,
      visits: t.visits,
      active_seconds: t.active,
      suspended_seconds: t.suspended,
      first_entered_at: formatMicros(t.firstEntered),
      last_exited_at: formatMicrosOrNull(t.lastExited),
    };
  });
  const launch = visits.find((v) => v.firstLaunch);
  return {
    object: "phase_durations",
    onboarding_id: onboarding.id,
    phases,
    current: { phase: onboarding.phase, entered_at: formatMicros(onboarding.phaseEnteredAt), active_seconds: current.active, suspended: current.suspendedNow },
    total_active_seconds: phases.reduce((n, p) => n + p.active_seconds, 0),
    total_suspended_seconds: phases.reduce((n, p) => n + p.suspended_seconds, 0),
    launched_at: launch ? formatMicros(launch.at) : null,
    target_launch_date: onboarding.targetLaunchDate,
    launched_on_time: !launch || launch.launchDelaySeconds === null ? null : launch.launchDelaySeconds === 0,
  };
}

/** Launches as the report counts them. */
interface LaunchTally {
  launches: number;
  onTime: number;
  late: number;
  delaySeconds: number;
}

/**
 * Visits that ended in [from, to), by phase, and the first launches among them. Whole months
 * of a workspace are read from the stored monthly aggregate (never the transitions); the
 * partial months at either end are grouped by the database from the `(org_id, at, …)` index
 * into the same duration buckets; a period within one month, and a customer's visits, are read
 * one by one (exact) through the `(org_id, at)` and `(org_id, customer_id, at)` indexes.
 */
export function* phaseDurationReport(deps: Pick<PhaseDurationDeps, "customers" | "phaseDurations">, actor: Pick<Actor, "orgId">, query: PhaseDurationReportQuery): Flow<PhaseDurationReportResource> {
  const from = query.from === undefined ? null : parseDateTimeMicros(query.from)!;
  const to = query.to === undefined ? null : parseDateTimeMicros(query.to)!;
  if (from !== null && to !== null && to <= from) throw new DomainError("too_small", "'to' must be later than 'from'.", "to");
  const customerId = query.customer_id === undefined ? null : (yield* findCustomer(deps.customers, actor.orgId, query.customer_id, "customer_id")).id;

  const groups = new Map<Phase, DurationGroup[]>();
  const launches: LaunchTally = { launches: 0, onTime: 0, late: 0, delaySeconds: 0 };
  const group = (phase: Phase, g: DurationGroup) => {
    const list = groups.get(phase);
    if (list) list.push(g);
    else groups.set(phase, [g]);
  };
  const addLaunch = (delaySeconds: number | null) => {
    launches.launches += 1;
    if (delaySeconds === 0) launches.onTime += 1;
    else if (delaySeconds !== null) {
      launches.late += 1;
      launches.delaySeconds += delaySeconds;
    }
  };
  const addVisits = (rows: readonly VisitRow[]) => {
    for (const v of rows) {
      group(v.fromPhase, { bucket: durationBucket(v.activeSeconds), visits: 1, activeSeconds: v.activeSeconds });
      if (v.firstLaunch) addLaunch(v.launchDelaySeconds);
    }
  };
  /** A partial month beside whole ones: grouped in the database, as precise as the aggregate it joins. */
  function* addPartial(from: number, to: number): Flow<void> {
    for (const row of yield* deps.phaseDurations.groupedVisits(actor.orgId, from, to)) group(row.phase, row);
    for (const launch of yield* deps.phaseDurations.launches(actor.orgId, from, to)) addLaunch(launch.launchDelaySeconds);
  }

  // The whole months inside [from, to), as `YYYY-MM` bounds; none when the period is shorter.
  const fullFrom = from === null ? null : from === monthStart(from) ? from : nextMonthStart(from);
  const fullTo = to === null ? null : monthStart(to);
  const fromMonth = fullFrom === null ? "0000-00" : monthOf(fullFrom);
  const toMonth = fullTo === null ? "9999-99" : monthOf(fullTo);
  if (customerId === null && fromMonth < toMonth) {
    for (const row of yield* deps.phaseDurations.monthlyVisits(actor.orgId, fromMonth, toMonth)) group(row.phase, row);
    const monthly = yield* deps.phaseDurations.monthlyLaunches(actor.orgId, fromMonth, toMonth);
    if (monthly) {
      launches.launches += monthly.launches;
      launches.onTime += monthly.onTime;
      launches.late += monthly.late;
      launches.delaySeconds += monthly.delaySeconds;
    }
    if (from !== null && fullFrom! > from) yield* addPartial(from, fullFrom!);
    if (to !== null && fullTo! < to) yield* addPartial(fullTo!, to);
  } else {
    addVisits(yield* deps.phaseDurations.visits(actor.orgId, customerId, from ?? 0, to ?? Number.MAX_SAFE_INTEGER));
  }

  const phases = PHASES.flatMap((phase) => {
    const summary = summarize(groups.get(phase) ?? []);
    if (summary.visits === 0) return [];
    return [{ phase, visits: summary.visits, mean_active_seconds: summary.mean, median_active_seconds: summary.median, p90_active_seconds: summary.p90 }];
  });
  const judged = launches.onTime + launches.late;
  return {
    object: "phase_duration_report",
    from: formatMicrosOrNull(from),
    to: formatMicrosOrNull(to),
    phases,
    launches: {
      count: launches.launches,
      on_time: launches.onTime,
      late: launches.late,
      on_time_rate: judged === 0 ? null : launches.onTime / judged,
      mean_delay_seconds: launches.late === 0 ? null : launches.delaySeconds / launches.late,
    },
  };
}
