/**
 * Times as template helpers show them. A value may be a wire time in seconds or milliseconds (Zulip sends
 * both) or an ISO 8601 string; numbers below 1e11 are seconds (1e11 seconds is the year 5138).
 */

/** The instant a wire value names, or null when it names none. */
export function instantOf(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value < 1e11 ? value * 1000 : value;
  if (typeof value === 'string' && value.trim() !== '') {
    const ms = Date.parse(value);
    return Number.isNaN(ms) ? null : ms;
  }
  return null;
}

/** RFC 3339 in UTC, without a fraction when there is none (`2026-11-20T09:30:00Z`). */
export const rfc3339 = (ms: number): string => new Date(ms).toISOString().replace(/\.000Z$/, 'Z');

const UNITS: readonly [string, number][] = [
  ['year', 365 * 86400],
  ['month', 30 * 86400],
  ['week', 7 * 86400],
  ['day', 86400],
  ['hour', 3600],
  ['minute', 60],
];

/** `3 days ago`, `in 2 hours`, `just now`: the largest whole unit between `ms` and `nowMs`. */
export function timeAgo(ms: number, nowMs: number): string {
  const seconds = Math.round((nowMs - ms) / 1000);
  const size = Math.abs(seconds);
  const unit = UNITS.find(([, s]) => size >= s);
  if (!unit) return 'just now';
  const n = Math.floor(size / unit[1]);
  const amount = `${n} ${unit[0]}${n === 1 ? '' : 's'}`;
  return seconds >= 0 ? `${amount} ago` : `in ${amount}`;
}
