/**
 * How tables show values meant for people: every time in one format (RFC 3339 in UTC to the second, or
 * "3 days ago" with --relative) and roles by name. TSV and CSV are for scripts and keep what they always
 * printed; JSON keeps the wire values.
 */
import { roleName } from '../../api/roles.js';

/** How a field holds a time: UNIX seconds, UNIX milliseconds, or an ISO 8601 string (users' date_joined). */
export type TimeUnit = 's' | 'ms' | 'iso';

/** A wire time as a Date; undefined for what is not one (null, an unparsable string). */
export function dateOf(value: unknown, unit: TimeUnit): Date | undefined {
  const date =
    unit === 'iso'
      ? typeof value === 'string'
        ? new Date(value)
        : undefined
      : typeof value === 'number'
        ? new Date(unit === 's' ? value * 1000 : value)
        : undefined;
  return date && !Number.isNaN(date.getTime()) ? date : undefined;
}

/** RFC 3339 in UTC; a fraction of a second only when there is one. */
export const rfc3339 = (date: Date): string => date.toISOString().replace(/\.000Z$/, 'Z');

const UNITS: readonly [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['week', 7 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
];

/** "3 days ago", "in 2 hours", "just now": the largest whole unit, as gh's timeago. */
export function relativeTime(date: Date, nowMs: number): string {
  const seconds = (date.getTime() - nowMs) / 1000;
  const format = new Intl.RelativeTimeFormat('en', { numeric: 'always' });
  for (const [unit, size] of UNITS) {
    const n = Math.trunc(seconds / size);
    if (n !== 0) return format.format(n, unit);
  }
  return 'just now';
}

/** A role number by name (`admin`); a number chatctl knows no name for stays as it is. */
export const roleText = (value: unknown): unknown => (typeof value === 'number' ? roleName(value) : value);
