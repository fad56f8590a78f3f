/** Invitations of both kinds: e-mail invitations (send, resend, revoke) and reusable links (create, revoke). */
import { operation, p } from '../operation.js';
import { s } from '../schema.js';
import { ROLE, type Role } from '../roles.js';
import { roleParam } from './users.js';

/** What both kinds of invitation show in GET /invites; `invited` and `expiry_date` are UNIX seconds. */
interface InviteBase {
  /** Unique only together with `is_multiuse`: the two kinds number their IDs independently. */
  id: number;
  invited_by_user_id: number;
  invited: number;
  expiry_date: number | null;
  invited_as: Role;
}

export interface EmailInvite extends InviteBase {
  email: string;
  is_multiuse: false;
  /** Level 267 (zerver/actions/invites.py do_get_invites_controlled_by_user); links carry none. */
  notify_referrer_on_join?: boolean;
}

/** A reusable invitation link: no `email` key. */
export interface LinkInvite extends InviteBase {
  link_url: string;
  is_multiuse: true;
}

export type Invite = EmailInvite | LinkInvite;

/** The extra fields of an INVITATION_FAILED error: [address, reason, is deactivated account]. */
export interface InvitationFailure {
  errors: [string, string, boolean][];
  sent_invitations: boolean;
  license_limit_reached: boolean;
  daily_limit_reached: boolean;
}

export const WELCOME_MESSAGE_MAX_LENGTH = 8000;

/** The expiry in whole days (rounded up), as servers from 96 to 125 take it. */
const inDays = (minutes: number | null): number | null => (minutes === null ? null : Math.ceil(minutes / 1440));

const inviteParams = {
  invitee_emails: p.req(s.string(), { doc: 'addresses separated by commas or newlines' }),
  stream_ids: p.req(s.list(s.int(), { unique: true }), { doc: 'channels to subscribe the new user to ([] for none)' }),
  invite_as: p.def(roleParam, ROLE.member, { doc: 'role: 100 owner ... 400 member (default), 600 guest' }),
  include_realm_default_subscriptions: p.def(s.bool(), false, { doc: "also the organization's default channels", minFeatureLevel: 261 }),
  group_ids: p.def(s.list(s.int(), { unique: true }), [], { doc: 'user groups the new user joins', minFeatureLevel: 322 }),
  notify_referrer_on_join: p.def(s.bool(), true, { doc: 'tell the inviter when the account is created', minFeatureLevel: 267 }),
  welcome_message_custom_text: p.opt(s.string({ maxLength: WELCOME_MESSAGE_MAX_LENGTH }), {
    doc: 'welcome message (administrators; "" sends none)',
    minFeatureLevel: 416,
  }),
  invite_expires_in_minutes: p.opt(s.nullable(s.int()), {
    doc: 'null: never expires; default 14400 (10 days)',
    minFeatureLevel: 96,
    older: [{ before: 126, name: 'invite_expires_in_days', value: inDays }],
  }),
};

export const sendInvites = operation<Record<string, never>>()({
  name: 'send-invites',
  method: 'POST',
  path: '/invites',
  summary: 'Invite people by e-mail; they join with the given role, channels and groups',
  access: 'member',
  bots: false,
  params: inviteParams,
  openapiPath: '/invites',
});

export const getInvites = operation<{ invites: Invite[] }>()({
  name: 'get-invites',
  method: 'GET',
  path: '/invites',
  summary: 'Pending invitations the caller can manage (administrators: all)',
  access: 'member',
  bots: false,
  params: {},
  openapiPath: '/invites',
});

export const revokeInvite = operation<Record<string, never>>()({
  name: 'revoke-invite',
  method: 'DELETE',
  path: '/invites/{invite_id}',
  summary: 'Revoke a pending e-mail invitation (never a link, whatever its ID)',
  access: 'member',
  bots: false,
  params: { invite_id: p.path(s.int()) },
  openapiPath: '/invites/{invite_id}',
});

export const resendInvite = operation<Record<string, never>>()({
  name: 'resend-invite',
  method: 'POST',
  path: '/invites/{invite_id}/resend',
  summary: 'Send a pending e-mail invitation again',
  access: 'member',
  bots: false,
  params: { invite_id: p.path(s.int()) },
});

export const createInviteLink = operation<{ invite_link: string }>()({
  name: 'create-invite-link',
  method: 'POST',
  path: '/invites/multiuse',
  summary: 'Create a reusable invitation link; whoever follows it joins with the given role, channels and groups',
  access: 'member',
  bots: false,
  params: {
    invite_as: inviteParams.invite_as,
    stream_ids: p.def(s.list(s.int(), { unique: true }), [], { doc: 'channels to subscribe new users to' }),
    group_ids: inviteParams.group_ids,
    include_realm_default_subscriptions: inviteParams.include_realm_default_subscriptions,
    invite_expires_in_minutes: inviteParams.invite_expires_in_minutes,
  },
  openapiPath: '/invites/multiuse',
});

export const revokeInviteLink = operation<Record<string, never>>()({
  name: 'revoke-invite-link',
  method: 'DELETE',
  path: '/invites/multiuse/{invite_id}',
  summary: 'Revoke a reusable invitation link',
  access: 'member',
  bots: false,
  params: { invite_id: p.path(s.int()) },
  openapiPath: '/invites/multiuse/{invite_id}',
});

/** Every operation above, by name: src/api/catalogue.ts collects these records. */
export const invitesOps = {
  sendInvites,
  getInvites,
  revokeInvite,
  resendInvite,
  createInviteLink,
  revokeInviteLink,
} as const;
