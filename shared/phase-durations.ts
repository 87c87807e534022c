/**
 * The SLA clock's arithmetic, shared by the API (which records a visit when a phase change
 * ends it, and answers the reports) and the worker (which records visits queued by versions
 * before the API did). Wall-clock seconds; no business calendars.
 */

/** Duration buckets of the monthly aggregate are 2% wide: a percentile read from them is within 2% of the exact one. */
export const BUCKET_RATIO = 1.02;

/**
 * The aggregate's bucket of a visit's active seconds: 0 under one second, then 1 + ⌊log₁.₀₂ s⌋.
 * The migration that backfilled the aggregate writes the same formula in SQL.
 */
export function durationBucket(seconds: number): number {
  return seconds < 1 ? 0 : 1 + Math.floor(Math.log(seconds) / Math.log(BUCKET_RATIO));
}

/** `YYYY-MM` (UTC) of an instant: the aggregate's month. */
export const monthOf = (micros: number): string => new Date(Math.floor(micros / 1000)).toISOString().slice(0, 7);

/** The first instant of the month (UTC) that holds `micros`. */
export function monthStart(micros: number): number {
  const d = new Date(Math.floor(micros / 1000));
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) * 1000;
}

/** The first instant of the month after the one that holds `micros`. */
export function nextMonthStart(micros: number): number {
  const d = new Date(Math.floor(micros / 1000));
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) * 1000;
}

/** A visit as a phase change ends it: how long it was active, from entering to leaving, less the suspended time. */
export function activeSeconds(enteredAt: number, exitedAt: number, suspendedSeconds: number): number {
  return Math.max(0, (exitedAt - enteredAt) / 1_000_000 - suspendedSeconds);
}

/**
 * An onboarding's current visit counted up to `nowMicros`: its active and suspended seconds,
 * and whether the clock is suspended now (the suspension so far in this phase, plus the one
 * running, if any).
 */
export function currentVisit(row: { phaseEnteredAt: number; slaSuspendedMicros: number; slaSuspendedSince: number | null }, nowMicros: number) {
  const now = Math.max(nowMicros, row.phaseEnteredAt);
  const suspendedNow = row.slaSuspendedSince !== null;
  const suspended = (row.slaSuspendedMicros + (suspendedNow ? Math.max(0, now - row.slaSuspendedSince!) : 0)) / 1_000_000;
  return { active: activeSeconds(row.phaseEnteredAt, now, suspended), suspended, suspendedNow };
}

/** Seconds a first launch came after its target (0 when on time or early); null without a target. */
export function launchDelaySeconds(launchedAt: number, targetMicros: number | null): number | null {
  return targetMicros === null ? null : Math.max(0, (launchedAt - targetMicros) / 1_000_000);
}

/** A distribution's groups of visits: exact values (one visit each) or a bucket's count and sum. */
export interface DurationGroup {
  bucket: number;
  visits: number;
  activeSeconds: number;
}

/**
 * Mean, median and 90th percentile of visits' active seconds (nearest rank: the value of the
 * ⌈p·n⌉-th smallest visit). A group is a bucket of the aggregate, whose visits are taken at
 * their mean (within 2% of each), or one exact visit (bucket of its own value).
 */
export function summarize(groups: readonly DurationGroup[]): { visits: number; mean: number; median: number; p90: number } {
  const sorted = groups.filter((g) => g.visits > 0).sort((a, b) => a.bucket - b.bucket || a.activeSeconds / a.visits - b.activeSeconds / b.visits);
  const visits = sorted.reduce((n, g) => n + g.visits, 0);
  const total = sorted.reduce((n, g) => n + g.activeSeconds, 0);
  const at = (p: number): number => {
    const rank = Math.max(1, Math.ceil(p * visits));
    let seen = 0;
    for (const g of sorted) {
      seen += g.visits;
      if (seen >= rank) return g.activeSeconds / g.visits;
    }
    return 0;
  };
  return { visits, mean: visits === 0 ? 0 : total / visits, median: at(0.5), p90: at(0.9) };
}
