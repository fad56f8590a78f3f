/**
 * Planning invitations: each row (an EMAIL argument, or a --from-file row) becomes the parameters of
 * POST /invites, and rows asking for the same parameters share one request, since the API takes many
 * addresses at once, up to INVITE_CHUNK addresses a request. Flags give every row its defaults; a row's own cells win. A row that cannot be sent
 * (a channel that does not exist, a bad expiry) is planned as a failure of its own, so it never holds up
 * the others.
 */
import { getInvites, sendInvites } from '../../api/operations/invites.js';
import { ROLE, roleName, type Role } from '../../api/roles.js';
import type { WireRequest } from '../../api/wire.js';
import type { CallParamsOf } from '../../api/operation.js';
import type { ChatClient } from '../../client/client.js';
import { cell, type Columns, type InputRow } from '../bulk/input.js';
import { parseRole } from '../core/flags.js';
import { refusalOf, type Refusal } from '../core/refusal.js';
import { requireResolved, resolveChannels, resolveGroups, type ResolvedId } from '../lookup/resolve.js';
import { parseExpires } from './options.js';

export const INVITE_COLUMNS: Columns = {
  email: { required: true, description: 'the address to invite' },
  channels: { description: 'channel IDs or names, comma-separated', json: 'list' },
  groups: { description: 'user group IDs or names, comma-separated', json: 'list' },
  as: { description: 'role: owner, admin, moderator, member, guest', json: 'id' },
  expires: { description: 'how long the invitation is valid: 7d, 12h, 30m, never' },
  default_channels: { description: "true: also the organization's default channels", json: 'boolean' },
  notify: { description: 'false: do not tell the inviter when the account is created', json: 'boolean' },
  welcome_text: { description: 'custom welcome message (administrators)' },
};

/**
 * Most addresses in one request. A Zulip server's default daily limit is 100 invitations
 * (INVITES_DEFAULT_REALM_DAILY_MAX), so a fresh day's allowance fits in one request, and a request refused
 * for the limit is narrowed to what still fits in at most 13 more (see deliver.ts); 10,000 rows are 100
 * requests, well under the 200 a minute a server allows one user.
 */
export const INVITE_CHUNK = 100;

/** What one row asks for, with channels and groups still as people named them. */
export interface InviteSpec {
  channels: readonly string[];
  groups: readonly string[];
  as?: Role;
  /** invite_expires_in_minutes; null: never expires. */
  expires?: number | null;
  defaultChannels?: boolean;
  notify?: boolean;
  welcomeText?: string;
}

export interface Recipient {
  /** 1-based position in the input. */
  row: number;
  email: string;
}

export type SendParams = Omit<CallParamsOf<typeof sendInvites>, 'invitee_emails'>;

/** One request's worth of addresses and what they are invited to. */
export interface SendableBatch {
  recipients: Recipient[];
  params: SendParams;
}

/** One row that cannot be sent, and why. */
export interface UnsendableRow {
  recipients: [Recipient];
  error: Refusal;
}

/**
 * One row whose effect is already in place, found before the run (a re-run): an invitation to the address is
 * pending with the same role; `id` is that invitation's. Nothing is sent for it.
 */
export interface InPlaceRow {
  recipients: [Recipient];
  inPlace: { id: number };
}

/** A row naming an address an earlier row of the same run already invites, with the same options: nothing is sent for it. */
export interface DuplicateRow {
  recipients: [Recipient];
  duplicateOf: number;
}

export type InviteBatch = SendableBatch | UnsendableRow | InPlaceRow | DuplicateRow;

const BOOLEANS: Record<string, boolean> = { true: true, yes: true, '1': true, false: false, no: false, '0': false };

function boolCell(row: InputRow, name: string): boolean | undefined {
  const raw = cell(row, name).trim().toLowerCase();
  if (!raw) return undefined;
  const value = BOOLEANS[raw];
  if (value === undefined) throw new Error(`${name} must be true or false, not "${cell(row, name)}"`);
  return value;
}

/** A list cell: a JSON array as it is (names may hold commas), text split at commas. */
function listCell(row: InputRow, name: string): string[] {
  const v = row[name];
  const items = Array.isArray(v) ? v.map(String) : cell(row, name).split(',');
  return items.map((s) => s.trim()).filter(Boolean);
}

/** A file row's spec: its non-empty cells over the defaults from the flags; throws for a cell it cannot read. */
export function specOfRow(row: InputRow, defaults: InviteSpec): InviteSpec {
  const channels = listCell(row, 'channels');
  const groups = listCell(row, 'groups');
  const as = cell(row, 'as').trim();
  const expires = cell(row, 'expires').trim();
  return {
    channels: channels.length ? channels : defaults.channels,
    groups: groups.length ? groups : defaults.groups,
    as: as ? parseRole(as) : defaults.as,
    expires: expires ? parseExpires(expires, 'expires') : defaults.expires,
    defaultChannels: boolCell(row, 'default_channels') ?? defaults.defaultChannels,
    notify: boolCell(row, 'notify') ?? defaults.notify,
    welcomeText: cell(row, 'welcome_text') || defaults.welcomeText,
  };
}

/** The IDs of `refs`, each once and sorted, so rows naming the same channels differently share a request. */
const ids = (refs: readonly string[], resolved: Map<string, ResolvedId>): number[] => [...new Set(requireResolved(resolved, refs))].sort((a, b) => a - b);

function paramsOf(spec: InviteSpec, channels: Map<string, ResolvedId>, groups: Map<string, ResolvedId>): SendParams {
  const groupIds = ids(spec.groups, groups);
  // Only what was asked for is sent, so an older server is not handed parameters it would ignore.
  return {
    stream_ids: ids(spec.channels, channels),
    invite_as: spec.as,
    invite_expires_in_minutes: spec.expires,
    group_ids: groupIds.length ? groupIds : undefined,
    include_realm_default_subscriptions: spec.defaultChannels || undefined,
    notify_referrer_on_join: spec.notify === false ? false : undefined,
    welcome_message_custom_text: spec.welcomeText,
  };
}

/**
 * Resolves every row's channels and groups (one GET each, only when some are named) and groups the rows
 * into requests. Batches come in the order of their first row.
 */
export async function planInvites(client: ChatClient, rows: readonly { recipient: Recipient; spec: InviteSpec | Error }[]): Promise<InviteBatch[]> {
  const specs = rows.flatMap((r) => (r.spec instanceof Error ? [] : [r.spec]));
  const channels = await resolveChannels(client, [...new Set(specs.flatMap((s) => s.channels))]);
  const groups = await resolveGroups(client, [...new Set(specs.flatMap((s) => s.groups))]);
  const earlier = await earlierWork(client);
  const batches: InviteBatch[] = [];
  const byParams = new Map<string, SendableBatch>();
  // Addresses are compared as the server compares them, without regard to case: one invitation an address.
  const firstOf = new Map<string, { row: number; key: string }>();
  for (const { recipient, spec } of rows) {
    let params: SendParams;
    let key: string;
    try {
      if (spec instanceof Error) throw spec;
      if (/[,\n]/.test(recipient.email)) throw new Error('one address a row (the address holds a comma or a line break)');
      params = paramsOf(spec, channels, groups);
      key = JSON.stringify(params);
      const address = recipient.email.toLowerCase();
      const first = firstOf.get(address);
      if (first && first.key !== key) throw new Error(`row ${first.row} invites this address with other options: one invitation an address`);
      if (first) {
        batches.push({ recipients: [recipient], duplicateOf: first.row });
        continue;
      }
      firstOf.set(address, { row: recipient.row, key });
      const inPlace = earlier(recipient.email, params.invite_as ?? ROLE.member);
      if (inPlace) {
        batches.push({ recipients: [recipient], inPlace });
        continue;
      }
    } catch (e) {
      batches.push({ recipients: [recipient], error: refusalOf(e) });
      continue;
    }
    const batch = byParams.get(key);
    if (batch && batch.recipients.length < INVITE_CHUNK) batch.recipients.push(recipient);
    else {
      const created: SendableBatch = { recipients: [recipient], params };
      byParams.set(key, created);
      batches.push(created);
    }
  }
  return batches;
}

/**
 * What earlier runs did, from one GET /invites: for an address, the pending invitation with the same role;
 * throws for a pending invitation with another role (a conflict, which only revoking settles). An address
 * that already has an account is left to the server, which refuses it with its own reason.
 */
async function earlierWork(client: ChatClient): Promise<(email: string, role: Role) => { id: number } | undefined> {
  const { invites } = await client.call(getInvites, {});
  const pending = new Map<string, { id: number; invited_as: number }>();
  for (const i of invites) if (!i.is_multiuse && i.email) pending.set(i.email.toLowerCase(), i);
  return (email, role) => {
    const invited = pending.get(email.trim().toLowerCase());
    if (!invited) return undefined;
    if (invited.invited_as === role) return { id: invited.id };
    throw new Error(
      `already invited as ${roleName(invited.invited_as)} (invitation ${invited.id}), not ${roleName(role)}: revoke it first (chatctl invite revoke email:${invited.id})`,
    );
  };
}

/** The full parameters of a batch's request. */
export const requestOf = (batch: SendableBatch): CallParamsOf<typeof sendInvites> => ({
  ...batch.params,
  invitee_emails: batch.recipients.map((r) => r.email).join(','),
});

/** How the person asked for what older servers lack, by parameter. */
export const INVITE_LABELS = {
  invite_expires_in_minutes: '--expires',
  group_ids: '--group',
  include_realm_default_subscriptions: '--default-channels',
  notify_referrer_on_join: '--no-notify',
  welcome_message_custom_text: '--welcome-text',
};

/** Sends a batch's request; the client shapes it for the server's feature level. */
export async function sendBatch(client: ChatClient, batch: SendableBatch, signal?: AbortSignal): Promise<void> {
  await client.call(sendInvites, requestOf(batch), { signal, labels: INVITE_LABELS });
}

/** The requests `sendBatch` would send (--dry-run); refused when the server cannot do what a batch asks. */
export function prepareBatch(client: ChatClient, batch: SendableBatch): Promise<WireRequest[]> {
  return client.prepare(sendInvites, requestOf(batch), { labels: INVITE_LABELS });
}
