/**
 * Time in this service is counted in integer microseconds since the Unix epoch.
 * Microseconds (not milliseconds) because list cursors are datetimes: every record gets a
 * `created_at` unique within its workspace and kind, and microsecond strings keep those
 * unique values readable and round-trippable as ISO 8601.
 */
export interface Clock {
  nowMicros(): number;
}

export const systemClock: Clock = {
  nowMicros: () => Math.floor((performance.timeOrigin + performance.now()) * 1000),
};

/** A clock that only moves when told to; for tests that need "60 seconds later". */
export class ManualClock implements Clock {
  constructor(private micros = Date.UTC(2026, 10, 22, 10, 0, 0) * 1000) {}
  nowMicros(): number {
    return this.micros;
  }
  advanceSeconds(seconds: number): void {
    this.micros += Math.round(seconds * 1_000_000);
  }
}

/** "00" … "59": the two-digit fields of a time of day, looked up instead of padded. */
const TWO_DIGITS = Array.from({ length: 60 }, (_, n) => (n < 10 ? `0${n}` : `${n}`));

/** `YYYY-MM-DDT` of a day since the epoch (days to civil date, after Howard Hinnant). */
function civilDate(days: number): string {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  return `${String(year).padStart(4, "0")}-${TWO_DIGITS[month]}-${TWO_DIGITS[day]}T`;
}

// The last day formatted: a page of records, and the timestamps of one record, mostly share it.
let lastDay = Number.NaN;
let lastDate = "";

/**
 * `2026-11-22T10:15:30.123456Z`: always UTC, always six fractional digits. Integer
 * arithmetic rather than a Date per value, and the date part kept from the previous call when
 * the day is the same: a page of onboardings formats a hundred of these.
 */
export function formatMicros(micros: number): string {
  const seconds = Math.floor(micros / 1_000_000);
  const fraction = micros - seconds * 1_000_000;
  const days = Math.floor(seconds / 86_400);
  if (days !== lastDay) {
    lastDate = civilDate(days);
    lastDay = days;
  }
  const secondOfDay = seconds - days * 86_400;
  const hour = Math.floor(secondOfDay / 3600);
  const minute = Math.floor((secondOfDay - hour * 3600) / 60);
  // 1,000,000 + fraction has seven digits: dropping the first pads the fraction to six.
  return `${lastDate}${TWO_DIGITS[hour]}:${TWO_DIGITS[minute]}:${TWO_DIGITS[secondOfDay - hour * 3600 - minute * 60]}.${String(1_000_000 + fraction).slice(1)}Z`;
}

export function formatMicrosOrNull(micros: number | null): string | null {
  return micros === null ? null : formatMicros(micros);
}

const DATETIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?([Zz]|[+-](\d{2}):(\d{2}))$/;

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/**
 * Parses an RFC 3339 / ISO 8601 date-time with seconds and a zone (`Z` or `±hh:mm`).
 * Returns microseconds, rounding sub-microsecond digits up: a cursor means "strictly older
 * than this instant", and for integer microseconds `t < x` holds exactly when `t < ceil(x)`.
 * Returns null for anything else, including impossible dates such as February 30th.
 */
export function parseDateTimeMicros(value: string): number | null {
  const m = DATETIME.exec(value);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number, number, number, number, number, number,
  ];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  let offsetMinutes = 0;
  if (m[9] !== undefined) {
    const oh = Number(m[9]);
    const om = Number(m[10]);
    if (oh > 23 || om > 59) return null;
    offsetMinutes = (m[8]!.startsWith("-") ? -1 : 1) * (oh * 60 + om);
  }
  const ms = Date.UTC(year, month - 1, day, hour, minute, second) - offsetMinutes * 60_000;
  const fraction = m[7] ?? "";
  const micros = Number(fraction.slice(0, 6).padEnd(6, "0"));
  const roundUp = /[1-9]/.test(fraction.slice(6)) ? 1 : 0;
  return ms * 1000 + micros + roundUp;
}

export function isDateTime(value: string): boolean {
  return parseDateTimeMicros(value) !== null;
}
