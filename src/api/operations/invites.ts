/** E-mail invitations: sending, listing and revoking them. */
import { operation, p } from '../operation.js';
import { s } from '../schema.js';
import { ROLES, type Role } from '../types.js';

/** An invitation as GET /invites shows it; `invited` and `expiry_date` are UNIX seconds. */
export interface Invite {
  id: number;
  invited_by_user_id: number;
  invited: number;
  expiry_date: number | null;
  invited_as: Role;
  email: string;
  is_multiuse: false;
}

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
  stream_ids: p.req(s.list(s.int()), { doc: 'channels to subscribe the new user to ([] for none)' }),
  invite_as: p.def(s.intOf(ROLES), 400, { doc: 'role: 100 owner ... 400 member (default), 600 guest' }),
  include_realm_default_subscriptions: p.def(s.bool(), false, { doc: "also the organization's default channels", minFeatureLevel: 261 }),
  group_ids: p.def(s.list(s.int()), [], { doc: 'user groups the new user joins', minFeatureLevel: 322 }),
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
  summary: 'Revoke a pending e-mail invitation',
  access: 'member',
  bots: false,
  params: { invite_id: p.path(s.int()) },
  openapiPath: '/invites/{invite_id}',
});
