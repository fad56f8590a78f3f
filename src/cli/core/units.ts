/**
 * Values as people type them in arguments and flags: durations (`30d`, `12h`, `1h30m`), sizes (`10MB`,
 * `512KiB`) and numeric IDs; and sizes as people read them. Sizes follow the units' standard meanings: kB/MB/GB are powers of 1000,
 * KiB/MiB/GiB powers of 1024; a bare K/M/G is binary, as in du and sort -h.
 */
import { usageError } from './errors.js';

const SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

/**
 * The units a duration takes, for messages and help. Only these, in lower case: `M` reads as months to
 * some (systemd.time) and minutes to others, and a month or a year has no one length, so a flag of a cron
 * job could delete the wrong files. chatctl refuses them rather than guess.
 */
export const DURATION_UNITS = 's (seconds), m (minutes), h (hours), d (days), w (weeks)';

/** What every duration flag's help adds to its own words. */
export const DURATION_HELP = 'units: s m h d w, lower case (chatctl help durations)';

const DURATION_HINT = 'combine them as in 1h30m; for months or years give days or weeks (30d, 52w): see chatctl help durations';

/**
 * Seconds in a duration such as `30d`, `12h`, `90m`, `45s`, `2w` or `1h30m`. `flag` names the option in
 * the usage error (`--older-than takes a duration ...`).
 */
export function parseDuration(text: string, flag?: string): number {
  const compact = text.trim().replace(/\s+/g, '');
  if (!/^(\d+(\.\d+)?[smhdw])+$/.test(compact)) {
    throw usageError(
      `${flag ? `${flag} takes` : 'expected'} a duration like 30d or 12h, not "${text}": the units are ${DURATION_UNITS}, in lower case`,
      DURATION_HINT,
    );
  }
  let seconds = 0;
  for (const [, amount, unit] of compact.matchAll(/(\d+(?:\.\d+)?)([smhdw])/g)) seconds += Number(amount) * SECONDS[unit!]!;
  return Math.round(seconds);
}

const BYTES: Record<string, number> = {
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
  tib: 1024 ** 4,
  k: 1024,
  m: 1024 ** 2,
  g: 1024 ** 3,
  t: 1024 ** 4,
};

const SIZE_HINT = 'sizes are a number and an optional unit: B, kB, MB, GB (powers of 1000), KiB, MiB, GiB (powers of 1024); K, M, G alone are powers of 1024';

/** Bytes in a size such as `10MB`, `1.5 GB`, `512KiB`, `200k` or `4096`; `flag` as for parseDuration. */
export function parseSize(text: string, flag?: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(text.trim());
  const factor = m ? BYTES[m[2]!.toLowerCase() || 'b'] : undefined;
  if (!m || factor === undefined) throw usageError(`${flag ? `${flag} takes` : 'expected'} a size like 10MB or 512KiB, not "${text}"`, SIZE_HINT);
  return Math.round(Number(m[1]) * factor);
}

/** A byte count for people: `512 B`, `1.5 kB`, `12 MB` (powers of 1000, like the sizes parseSize reads). */
export function formatSize(bytes: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  const digits = unit === 0 || value >= 100 ? 0 : value >= 10 ? 1 : 2;
  return `${Number(value.toFixed(digits))} ${units[unit]}`;
}

/** A wait for people: `45 s` (rounded up), `12 min`, `1 h 5 min` (to the nearest minute). */
export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${Math.ceil(seconds)} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h${minutes % 60 ? ` ${minutes % 60} min` : ''}`;
}

/** Positional numeric IDs (`5 7 9`); anything else is a usage error naming what was expected. */
export function parseIdArgs(values: readonly string[], what: string): number[] {
  const bad = values.find((v) => !/^\d+$/.test(v.trim()));
  if (bad !== undefined) throw usageError(`${what} IDs are numbers, not "${bad}"`);
  return values.map((v) => Number(v.trim()));
}

/** `n word`, the word with an s unless n is 1: "1 attachment", "3 attachments". */
export const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
