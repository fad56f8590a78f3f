/**
 * What an invitation grants, as `invite send` and `invite link create` take it from flags: the role, how
 * long it is valid, channels, groups and the default channels. Each value is read once, here.
 */
import { usageError } from '../core/errors.js';
import { flag } from '../core/flags.js';
import { DURATION_HELP, parseDuration } from '../core/units.js';

/** `7d`, `12h`, `30m` or `never` into invite_expires_in_minutes (null: never expires). */
export function parseExpires(text: string, name = '--expires'): number | null {
  if (text.trim().toLowerCase() === 'never') return null;
  const seconds = parseDuration(text, name);
  if (seconds <= 0 || seconds % 60 !== 0) throw usageError(`${name} takes whole minutes or more (e.g. 30m, 12h, 7d) or never, not "${text}"`);
  return seconds / 60;
}

/** The flags both commands take; `expiresHelp` says what expires (an invitation, a link). */
export const inviteFlags = (expiresHelp: string) => ({
  channel: flag.list('--channel <channel>', 'subscribe them to this channel, ID or name (repeatable)'),
  as: flag.role('--as <role>', 'their role: owner, admin, moderator, member (default), guest'),
  expires: flag.custom('--expires <duration>', `${expiresHelp}; ${DURATION_HELP}`, parseExpires),
  group: flag.list('--group <group>', 'add them to this user group, ID or name (repeatable)'),
  defaultChannels: flag.bool('--default-channels', "also subscribe them to the organization's default channels"),
});
