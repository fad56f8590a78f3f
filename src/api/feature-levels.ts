/**
 * What is known of Zulip's feature levels beyond the catalogue: the level each release shipped with, so that a
 * server answering as level N can give a version a client would expect beside it. From the API changelog's
 * "Changes in Zulip X.0" sections (https://zulip.com/api/changelog).
 */

/** Releases and their feature levels, oldest first. */
const RELEASES: readonly { version: string; level: number }[] = [
  { version: '8.0', level: 237 },
  { version: '9.0', level: 277 },
  { version: '10.0', level: 371 },
  { version: '11.0', level: 421 },
];

/** The major version under development after the last release listed. */
const NEXT_MAJOR = '12.0';

/**
 * The version a server at `level` reports: the release's own at its level, else the development version of the
 * next release (`9.0-dev` between 8.0 and 9.0), as Zulip's `main` names itself.
 */
export function versionForLevel(level: number): string {
  const release = RELEASES.find((r) => level <= r.level);
  if (!release) return `${NEXT_MAJOR}-dev`;
  return level === release.level ? release.version : `${release.version}-dev`;
}
